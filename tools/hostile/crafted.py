"""Hand-built hostile families (the ones issue 10 names): creation ops with wrapping sizes, dim
arguments on 0-d inputs, graph-structure lies, wrong constants and inputs, deep nesting,
super-linear sizes, torch.save views and zip tables that lie. Each family function yields
(file_name, payload_bytes, run_spec) where run_spec says how the sweep runs the file."""
import json
import struct

from hostile_lib import (Pickle, dumps, ir, meta, node, patch, safetensors, simple_pt, st_tensor,
                         state_dict_pickle, torch_save, eocd_offset, pack_values)

BIG = [2**62, 2**61, 2**63 - 1, 2**32, 2**31, -1, -2**62]
X14 = meta('x', [1, 4], producer='x')
SCALAR = meta('x', [], producer='x')


def _run(ir_file, weights='@empty', inputs='@io_none', cmd='run'):
    return {'cmd': cmd, 'ir': ir_file, 'weights': weights, 'inputs': inputs}


def creation():
    """zeros/ones/empty/full of sizes whose product or byte size overflows, wraps to 0 or is huge."""
    sizes = [[2**62], [2**61, 2], [2**32, 2**32], [2**31, 2**31, 4], [2**63 - 1], [-1], [-5, 3], [0, 2**62],
             [65536, 65536], [2**30], [2**20, 2**12, 4], [3, -2**62]]
    ops = {'aten.zeros.default': {}, 'aten.ones.default': {}, 'aten.empty.memory_format': {},
           'aten.full.default': {'fill_value': 1.5}, 'aten.randn.default': {}, 'aten.rand.default': {}}
    i = 0
    for op, extra in ops.items():
        for size in sizes:
            for dtype in ('torch.float32', 'torch.int64', 'torch.bool'):
                n = node('c', op, [], attrs=dict(size=size, dtype=dtype, device='cpu', pin_memory=False, **extra),
                         out_shape=size, out_dtype=dtype[6:])
                yield f'{op[5:]}_{i}.json', dumps(ir([n])), _run('SELF')
                i += 1
    # The same sizes declared only in the output meta (the IR's shape disagrees with attrs).
    for size in sizes:
        n = node('c', 'aten.zeros.default', [], attrs={'size': [2]}, out_shape=size)
        yield f'meta_lie_{i}.json', dumps(ir([n])), _run('SELF')
        i += 1
    # new_* / *_like from a small input.
    for op in ('aten.new_zeros.default', 'aten.new_ones.default', 'aten.new_empty.default',
               'aten.new_full.default'):
        for size in sizes:
            attrs = {'size': size, 'fill_value': 2.0}
            n = node('c', op, [X14], attrs=attrs, out_shape=size)
            yield f'{op[5:]}_{i}.json', dumps(ir([n], [meta('x', [1, 4])])), _run('SELF', inputs='@io_x14')
            i += 1
    # arange to 2^62, step 0, negative steps, NaN/inf ends.
    for attrs in ({'end': 2**62}, {'start': 0, 'end': 2**62}, {'start': 0, 'end': 10, 'step': 0},
                  {'start': 0, 'end': 2**62, 'step': 1}, {'start': 2**62, 'end': -2**62, 'step': -1},
                  {'start': 0, 'end': float('inf')}, {'start': 0, 'end': float('nan')},
                  {'start': 0, 'end': 1e300, 'step': 1e-300}, {'end': -5}, {'start': 0, 'end': 2**31, 'step': 1},
                  {'start': 0.0, 'end': 4e9, 'step': 1.0}):
        for op in ('aten.arange.default', 'aten.arange.start', 'aten.arange.start_step'):
            for dt in ('torch.int64', 'torch.float32'):
                a = dict(attrs, dtype=dt, device='cpu', pin_memory=False)
                n = node('a', op, [], attrs=a, out_shape=[16], out_dtype=dt[6:])
                yield f'arange_{i}.json', dumps(ir([n])), _run('SELF')
                i += 1
    # expand to 2^62 then clone / sum / mean / contiguous / add.
    for size in ([2**62], [2**61, 2], [2**32, 2**32], [2**31, 2**31], [2**40], [1, 2**62]):
        x1 = meta('x', [1], producer='x')
        for tail in ('aten.clone.default', 'aten.sum.default', 'aten.mean.default', 'aten.contiguous.default',
                     'aten.add.Tensor', 'aten.relu.default', 'aten.sum.dim_IntList', 'aten.cumsum.default'):
            e = node('e', 'aten.expand.default', [x1], attrs={'size': size}, out_shape=size)
            ins = [meta('e', size, producer='e')]
            attrs = {'dim': [0]} if tail.endswith('dim_IntList') else ({'dim': 0} if 'cumsum' in tail else {})
            if tail == 'aten.add.Tensor':
                ins = ins * 2
            t = node('t', tail, ins, attrs=attrs, out_shape=[] if tail in ('aten.sum.default', 'aten.mean.default')
                     else size)
            yield f'expand_{i}.json', dumps(ir([e, t], [meta('x', [1])])), _run('SELF', inputs='@io_x1')
            i += 1
    # view / reshape / repeat / eye / linspace to huge sizes.
    for op, attrs in (('aten.view.default', {'size': [2**62, 0]}), ('aten.view.default', {'size': [-1, 0]}),
                      ('aten.reshape.default', {'shape': [2**32, 2**32]}), ('aten.view.default', {'size': [-1, -1]}),
                      ('aten.repeat.default', {'repeats': [2**62, 1]}), ('aten.repeat.default', {'repeats': [2**31, 2**31]}),
                      ('aten.repeat.default', {'repeats': [-1, 2]}), ('aten.tile.default', {'dims': [2**40]}),
                      ('aten.view.default', {'size': [2, 2]}), ('aten.expand.default', {'size': [-2, 4]}),
                      ('aten.pad.default', {'pad': [2**62, 2**62]}), ('aten.constant_pad_nd.default', {'pad': [2**40, 0]}),
                      ('aten.constant_pad_nd.default', {'pad': [-100, 0]}),
                      ('aten.repeat_interleave.self_int', {'repeats': 2**40}),
                      ('aten.upsample_nearest2d.vec', {'output_size': [2**31, 2**31]})):
        n = node('v', op, [X14], attrs=attrs, out_shape=[4])
        yield f'shape_op_{i}.json', dumps(ir([n], [meta('x', [1, 4])])), _run('SELF', inputs='@io_x14')
        i += 1
    for op, attrs in (('aten.eye.default', {'n': 2**31}), ('aten.eye.m', {'n': 2**31, 'm': 2**31}),
                      ('aten.linspace.default', {'start': 0, 'end': 1, 'steps': 2**62}),
                      ('aten.linspace.default', {'start': 0, 'end': 1, 'steps': -1}),
                      ('aten.scalar_tensor.default', {'s': float('nan')}),
                      ('aten.full.default', {'size': [2**62], 'fill_value': float('nan')})):
        n = node('v', op, [], attrs=attrs, out_shape=[4])
        yield f'creation_misc_{i}.json', dumps(ir([n])), _run('SELF')
        i += 1


DIM_OPS = [
    ('aten.split.Tensor', {'split_size': 1}), ('aten.split.sizes', {'split_size': [1]}),
    ('aten.split_with_sizes.default', {'split_sizes': [1]}), ('aten.chunk.default', {'chunks': 2}),
    ('aten.unbind.int', {}), ('aten.unsafe_split.Tensor', {'split_size': 1}),
    ('aten.narrow.default', {'start': 0, 'length': 1}), ('aten.unflatten.int', {'sizes': [1, 1]}),
    ('aten.select.int', {'index': 0}), ('aten.squeeze.dim', {}), ('aten.unsqueeze.default', {}),
    ('aten.transpose.int', {'dim0': 0, 'dim1': 1}), ('aten.softmax.int', {}), ('aten._softmax.default', {'half_to_float': False}),
    ('aten.log_softmax.int', {}), ('aten.sum.dim_IntList', {}), ('aten.mean.dim', {}), ('aten.amax.default', {}),
    ('aten.flip.default', {}), ('aten.roll.default', {'shifts': [1]}), ('aten.cumsum.default', {}),
    ('aten.argmax.default', {}), ('aten.max.dim', {}), ('aten.topk.default', {'k': 1}), ('aten.sort.default', {}),
    ('aten.slice.Tensor', {'start': 0, 'end': 1}), ('aten.index_select.default', {}), ('aten.gather.default', {}),
    ('aten.cat.default', {'_tensor_list_sizes': [1]}), ('aten.stack.default', {'_tensor_list_sizes': [1]}),
    ('aten.flatten.using_ints', {'start_dim': 0, 'end_dim': 1}), ('aten.movedim.int', {'source': 0, 'destination': 1}),
    ('aten.permute.default', {}), ('aten.norm.ScalarOpt_dim', {'p': 2}), ('aten.var.correction', {}),
    ('aten.prod.dim_int', {}), ('aten.any.dim', {}), ('aten.logsumexp.default', {}), ('aten.diff.default', {}),
    ('aten.repeat_interleave.self_int', {'repeats': 2}), ('aten.tensor_split.sections', {'sections': 2}),
    ('aten.glu.default', {}), ('aten.index_copy.default', {}), ('aten.scatter.value', {'value': 1.0}),
]
LIST_DIM = {'aten.sum.dim_IntList', 'aten.mean.dim', 'aten.amax.default', 'aten.flip.default', 'aten.roll.default',
            'aten.permute.default', 'aten.norm.ScalarOpt_dim', 'aten.var.correction', 'aten.logsumexp.default'}
INDEX_INPUT = {'aten.index_select.default', 'aten.gather.default', 'aten.index_copy.default', 'aten.scatter.value'}


def dim0d():
    """Every dim-taking op on a 0-d input with dims 0, 1, -1, -2, 2^62; plus negative split sizes."""
    i = 0
    for op, base in DIM_OPS:
        for dim in (0, 1, -1, -2, 2**62, -2**62):
            attrs = dict(base)
            key = 'dims' if op in ('aten.flip.default', 'aten.permute.default', 'aten.roll.default') else 'dim'
            attrs[key] = [dim] if op in LIST_DIM else dim
            if op == 'aten.roll.default':
                attrs['dims'] = [dim]
            ins = [SCALAR]
            if op in INDEX_INPUT:
                ins = [SCALAR, meta('idx', [1], 'int64', producer='idx')]
                if op == 'aten.index_copy.default':
                    ins.append(SCALAR)
            outs = [meta('o_0', [1]), meta('o_1', [1])]
            n = node('o', op, ins, outputs=outs, attrs=attrs)
            gin = [meta('x', [])] + ([meta('idx', [1], 'int64')] if op in INDEX_INPUT else [])
            yield f'{op[5:]}_{i}.json', dumps(ir([n], gin, outputs=[outs[0]])), \
                _run('SELF', inputs='@io_scalar_idx' if op in INDEX_INPUT else '@io_scalar')
            i += 1
    # Negative / zero / huge split sizes on a real 1-D input.
    x8 = meta('x', [8], producer='x')
    for op, key in (('aten.split.Tensor', 'split_size'), ('aten.unsafe_split.Tensor', 'split_size'),
                    ('aten.split_with_sizes.default', 'split_sizes'), ('aten.split.sizes', 'split_size'),
                    ('aten.chunk.default', 'chunks'), ('aten.tensor_split.sections', 'sections')):
        for v in (-1, 0, -2**62, 2**62, -8, [4, -4, 8], [2**62, -2**62 + 8], [0] * 1000):
            if isinstance(v, list) and 'sizes' not in key and key != 'split_size':
                continue
            outs = [meta(f'o_{k}', [4]) for k in range(2)]
            n = node('o', op, [x8], outputs=outs, attrs={key: v, 'dim': 0})
            yield f'split_{i}.json', dumps(ir([n], [meta('x', [8])], outputs=[outs[0]])), _run('SELF', inputs='@io_x8')
            i += 1


def structure():
    """Graph lies: duplicates, cycles, self-consumption, dangling producers, index lies, list-size lies."""
    i = 0
    relu = lambda name, src, idx=0: node(name, 'aten.relu.default', [meta(src, [1, 4], producer=src, idx=idx)],
                                         out_shape=[1, 4])
    gin = [meta('x', [1, 4])]
    cases = {
        'dup_node': [relu('a', 'x'), relu('a', 'a')],
        'dup_input': 'DUPIN',
        'cycle2': [relu('a', 'b'), relu('b', 'a')],
        'cycle3': [relu('a', 'c'), relu('b', 'a'), relu('c', 'b')],
        'self': [relu('a', 'a')],
        'dangling': [relu('a', 'nope')],
        'idx_big': [relu('a', 'x', 2**62)],
        'idx_neg': [relu('a', 'x', -1)],
        'idx_1': [relu('a', 'x'), relu('b', 'a', 1)],
        'out_is_input': [relu('x', 'x')],
        'empty_name': [relu('', 'x')],
        'getitem_oob': [relu('a', 'x'), node('g', '<built-in function getitem>', [meta('a', [1, 4], producer='a')],
                                             attrs={'index': 5}, out_shape=[1, 4])],
        'getitem_neg': [relu('a', 'x'), node('g', '<built-in function getitem>', [meta('a', [1, 4], producer='a')],
                                             attrs={'index': -2**62}, out_shape=[1, 4])],
        'list_sizes_lie': [node('c', 'aten.cat.default', [meta('x', [1, 4], producer='x')],
                                attrs={'_tensor_list_sizes': [5], 'dim': 0}, out_shape=[5, 4])],
        'list_sizes_neg': [node('c', 'aten.cat.default', [meta('x', [1, 4], producer='x')],
                                attrs={'_tensor_list_sizes': [-1, 2], 'dim': 0}, out_shape=[1, 4])],
        'list_sizes_huge': [node('c', 'aten.stack.default', [meta('x', [1, 4], producer='x')],
                                 attrs={'_tensor_list_sizes': [2**62], 'dim': 0}, out_shape=[1, 4])],
        'none_mask_lie': [node('c', 'aten.index.Tensor', [meta('x', [1, 4], producer='x')],
                               attrs={'_tensor_list_none_masks': [[False, False, False]]}, out_shape=[1, 4])],
        'no_outputs_used': [node('c', 'aten.relu.default', [meta('x', [1, 4], producer='x')], outputs=[])],
        'op_weird': [node('c', 'aten.' + 'x' * 5000, [meta('x', [1, 4], producer='x')], out_shape=[1, 4])],
        'op_empty': [node('c', '', [meta('x', [1, 4], producer='x')], out_shape=[1, 4])],
        'wrong_arity': [node('c', 'aten.add.Tensor', [meta('x', [1, 4], producer='x')], out_shape=[1, 4])],
        'too_many_inputs': [node('c', 'aten.relu.default', [meta('x', [1, 4], producer='x')] * 50, out_shape=[1, 4])],
        'shape_lie': [node('c', 'aten.relu.default', [meta('x', [7, 9], producer='x')], out_shape=[1, 4])],
        'dtype_lie': [node('c', 'aten.relu.default', [meta('x', [1, 4], 'int64', producer='x')], out_shape=[1, 4])],
        'weird_dtype': [node('c', 'aten.relu.default', [meta('x', [1, 4], 'complex128', producer='x')], out_shape=[1, 4])],
        'missing_weight': [node('c', 'aten.add.Tensor', [meta('x', [1, 4], producer='x'), meta('p_w', [1, 4])],
                                out_shape=[1, 4])],
        'inplace_on_input': [node('c', 'aten.relu_.default', [meta('x', [1, 4], producer='x')], out_shape=[1, 4])],
        'copy_into_self': [node('c', 'aten.copy_.default', [meta('x', [1, 4], producer='x')] * 2, out_shape=[1, 4])],
    }
    for name, nodes in cases.items():
        if nodes == 'DUPIN':
            d = ir([relu('a', 'x')], gin * 2)
        else:
            d = ir(nodes, gin) if nodes else ir([], gin)
        yield f'{name}.json', dumps(d), _run('SELF', inputs='@io_x14')
        i += 1
    # graph_outputs that name nothing / are graph inputs / repeat.
    for outs in ([meta('zzz', [1, 4])], [meta('x', [1, 4])], [meta('a', [1, 4])] * 1000, [],
                 [meta('a', [2**62])], [{'name': 'a'}]):
        yield f'outputs_{i}.json', dumps(ir([relu('a', 'x')], gin, outputs=outs)), _run('SELF', inputs='@io_x14')
        i += 1
    # Wrong JSON types at every level.
    base = ir([relu('a', 'x')], gin)
    for path, val in ((('nodes',), {}), (('nodes',), 'x'), (('graph_inputs',), 5), (('nodes', 0), []),
                      (('nodes', 0, 'inputs'), {}), (('nodes', 0, 'inputs', 0, 'shape'), 'abc'),
                      (('nodes', 0, 'inputs', 0, 'shape'), [1.5, 4]), (('nodes', 0, 'inputs', 0, 'shape'), [None]),
                      (('nodes', 0, 'inputs', 0, 'shape'), [float('nan'), 4]), (('nodes', 0, 'inputs', 0, 'shape'), [1e300]),
                      (('nodes', 0, 'inputs', 0, 'shape'), [2**64]), (('nodes', 0, 'inputs', 0, 'shape'), [-2**63]),
                      (('nodes', 0, 'attrs'), [1]), (('nodes', 0, 'name'), 5), (('nodes', 0, 'op_type'), None),
                      (('weight_name_mapping',), []), (('weight_name_mapping',), {'a': 5}), (('constants',), []),
                      (('graph_inputs', 0, 'dtype'), 'torch.float128'), (('graph_inputs', 0, 'dtype'), 99),
                      (('graph_inputs', 0, 'dtype'), -1), (('nodes', 0, 'inputs', 0, 'producer_output_idx'), 'a'),
                      (('nodes', 0, 'inputs', 0, 'producer_output_idx'), 1.5)):
        d = json.loads(json.dumps(base))
        tgt = d
        for p in path[:-1]:
            tgt = tgt[p]
        tgt[path[-1]] = val
        yield f'types_{i}.json', dumps(d), _run('SELF', inputs='@io_x14')
        i += 1


def constants_inputs():
    """Lifted constants with wrong sizes / dtypes / depths; graph inputs that disagree with the IO file."""
    i = 0
    w = meta('c_k', [2, 2])
    n = node('m', 'aten.mul.Tensor', [meta('x', [2, 2], producer='x'), w], out_shape=[2, 2])
    gin = [meta('x', [2, 2])]
    for data, dtype, shape in (([1, 2, 3], 'float32', [2, 2]), ([[1, 2], [3]], 'float32', [2, 2]),
                               ([[1, 2], [3, 4], [5, 6]], 'float32', [2, 2]), ([[[1]]], 'float32', [2, 2]),
                               ('abc', 'float32', [2, 2]), ([['a', 'b'], ['c', 'd']], 'float32', [2, 2]),
                               ([[1, 2], [3, 4]], 'float512', [2, 2]), ([[1, 2], [3, 4]], 'float32', [2**62, 2]),
                               ([[1e400, 2], [3, 4]], 'float16', [2, 2]), ([[2**70, 2], [3, 4]], 'int64', [2, 2]),
                               ([], 'float32', [2, 2]), (None, 'float32', [2, 2]), ([[1, 2], [3, 4]], None, [2, 2]),
                               ([[1, 2], [3, 4]], 'bool', [2, 2]), ([[float('nan')] * 2] * 2, 'int32', [2, 2])):
        consts = {'k': {'data': data, 'dtype': dtype}}
        weights = [meta('k', shape, dtype or 'float32')]
        d = ir([n], gin, weights=weights, mapping={'c_k': 'k'}, constants=consts)
        yield f'const_{i}.json', dumps(d), _run('SELF', inputs='@io_x22')
        i += 1
    # Graph inputs that disagree with the IO file (shape, dtype, count), and hostile declared shapes.
    for shape, dtype, io in (([1, 4], 'float32', '@io_x22'), ([2, 2], 'int64', '@io_x22'), ([2, 2], 'float32', '@io_none'),
                             ([2**62], 'float32', '@io_x22'), ([2**31, 2**31, 4], 'float32', '@io_x22'),
                             ([-1, 4], 'float32', '@io_x22'), ([0], 'float32', '@io_x22'), ([], 'float32', '@io_x22'),
                             ([2, 2], 'bool', '@io_x22'), ([2, 2], 'float64', '@io_x22'),
                             ([2, 2], 'float32', '@io_x22_i64'), ([2, 2], 'float32', '@io_x_huge')):
        nn = node('r', 'aten.relu.default', [meta('x', shape, dtype, producer='x')], out_shape=shape, out_dtype=dtype)
        yield f'input_{i}.json', dumps(ir([nn], [meta('x', shape, dtype)])), _run('SELF', inputs=io)
        i += 1
    # Wrong weight sizes: IR says [2, 2], the weights file holds other shapes/dtypes.
    nw = node('m', 'aten.mul.Tensor', [meta('x', [2, 2], producer='x'), meta('p_w', [2, 2])], out_shape=[2, 2])
    d = ir([nw], gin, weights=[meta('w', [2, 2])], mapping={'p_w': 'w'})
    for k, wt in enumerate(('@w_3', '@w_i64', '@w_22x', '@w_scalar', '@w_huge_view', '@w_stride0', '@empty')):
        yield f'weight_{i}_{k}.json', dumps(d), _run('SELF', weights=wt, inputs='@io_x22')
        i += 1
