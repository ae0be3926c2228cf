"""Hostile families part 2: deep nesting, super-linear sizes, torch.save views and lying zip tables.
Same contract as crafted.py: each family yields (file_name, payload, run_spec)."""
import json
import struct

from hostile_lib import (Pickle, dumps, ir, meta, node, patch, safetensors, simple_pt, st_tensor,
                         state_dict_pickle, torch_save, eocd_offset, pack_values)
from crafted import _run


def _relu_ir(attrs_raw=b'{}'):
    """A one-relu IR whose attrs are spliced in raw (so nesting never touches Python's json)."""
    head = (b'{"model_name":"n","graph_inputs":[{"name":"x","shape":[1,4],"dtype":"float32"}],'
            b'"graph_outputs":[{"name":"r","shape":[1,4],"dtype":"float32"}],"weights":[],'
            b'"weight_name_mapping":{},"nodes":[{"name":"r","op_type":"aten.relu.default","inputs":'
            b'[{"name":"x","shape":[1,4],"dtype":"float32","producer_node":"x"}],'
            b'"outputs":[{"name":"r","shape":[1,4],"dtype":"float32"}],"attrs":')
    return head + attrs_raw + b'}]}'


def nesting():
    """Attrs / top-level / safetensors headers / pickles nested 1k..300k deep; info and run both."""
    for depth in (1000, 10000, 100000, 300000):
        for kind, open_, close in (('dict', b'{"a":', b'}'), ('list', b'[', b']')):
            attrs = b'{"k":' + open_ * depth + b'1' + close * depth + b'}'
            body = _relu_ir(attrs)
            for cmd in ('info', 'run'):
                yield f'attr_{kind}_{depth}_{cmd}.json', body, _run('SELF', inputs='@io_x14', cmd=cmd)
        yield f'toplevel_{depth}.json', b'[' * depth + b']' * depth, _run('SELF', cmd='info')
        yield f'unclosed_{depth}.json', b'{"nodes":' + b'[' * depth, _run('SELF', cmd='info')
        # Deep value under an unknown top-level key (must be skipped, not recursed into).
        yield f'unknown_key_{depth}.json', b'{"zz":' + b'[' * depth + b']' * depth + _relu_ir()[1:], \
            _run('SELF', inputs='@io_x14')
        # Constants data nested deep.
        d = _relu_ir()[:-1] + b',"constants":{"k":{"dtype":"float32","data":' + b'[' * depth + b'1' + \
            b']' * depth + b'}}}'
        yield f'const_deep_{depth}.json', d, _run('SELF', inputs='@io_x14')
    for depth in (1000, 10000, 200000, 400000):
        for where in ('metadata', 'tensor', 'top'):
            deep = b'[' * depth + b']' * depth
            if where == 'metadata':
                h = b'{"__metadata__":{"a":' + deep + b'}}'
            elif where == 'tensor':
                h = b'{"w":{"dtype":"F32","shape":' + deep + b',"data_offsets":[0,16]}}'
            else:
                h = deep
            yield f'st_{where}_{depth}.safetensors', safetensors([], header_override=h), \
                _run('@relu_ir', weights='SELF', inputs='@io_x14')
        # Pickle: nested tuples/lists/dicts as deep as the memo and stack allow.
        for kind, unit in (('list', b']'), ('mark', b'('), ('dict', b'}')):
            p = b'\x80\x02' + unit * depth + b'.'
            yield f'pkl_{kind}_{depth}.pt', torch_save(p, {}), _run('@relu_ir', weights='SELF', inputs='@io_x14')
        p = b'\x80\x02' + b']' * depth + b'a' * (depth - 1) + b'.'
        yield f'pkl_append_{depth}.pt', torch_save(p, {}), _run('@relu_ir', weights='SELF', inputs='@io_x14')


def superlinear():
    """Sizes where an O(n^2) pass costs minutes: each file must finish (or be refused) within 10 s."""
    # Pickle dict with n int keys (and str keys), as the top-level object.
    for n in (30000, 300000):
        for keytype in ('int', 'str'):
            p = Pickle().op(b'}(')
            for k in range(n):
                p.value(k if keytype == 'int' else f'k{k}').value(k)
            yield f'pkl_dict_{keytype}_{n}.pt', torch_save(p.op(b'u').done(), {}), \
                _run('@relu_ir', weights='SELF', inputs='@io_x14')
        # Memo: n BINPUT/LONG_BINPUT slots, then n BINGETs.
        p = Pickle().op(b']')
        for k in range(n):
            p.op(b'r' + struct.pack('<I', k))
        yield f'pkl_memo_{n}.pt', torch_save(p.done(), {}), _run('@relu_ir', weights='SELF', inputs='@io_x14')
    # weight_name_mapping with n entries (one used), weights list with n entries.
    for n in (10000, 100000):
        mapping = {f'p_w{k}': f'w{k}' for k in range(n)}
        weights = [meta(f'w{k}', [1, 4]) for k in range(n)]
        nd = node('m', 'aten.add.Tensor', [meta('x', [1, 4], producer='x'), meta('p_w0', [1, 4])], out_shape=[1, 4])
        yield f'mapping_{n}.json', dumps(ir([nd], [meta('x', [1, 4])], weights=weights, mapping=mapping)), \
            _run('SELF', weights='@w0_14', inputs='@io_x14')
        # ... and a weights file that holds all n, so every key is registered under its placeholder.
        yield f'mapping_all_{n}.safetensors', safetensors([st_tensor(f'w{k}', 'float32', [1, 4]) for k in range(n)]), None
        yield f'mapping_bound_{n}.json', dumps(ir([nd], [meta('x', [1, 4])], weights=weights, mapping=mapping)), \
            _run('SELF', weights=f'build/hostile/superlinear/mapping_all_{n}.safetensors', inputs='@io_x14')
    # Chains of n relu nodes, and n graph inputs summed pairwise.
    for n in (30000, 300000):
        nodes = [node('n0', 'aten.relu.default', [meta('x', [1, 4], producer='x')], out_shape=[1, 4])]
        for k in range(1, n):
            nodes.append(node(f'n{k}', 'aten.relu.default', [meta(f'n{k-1}', [1, 4], producer=f'n{k-1}')],
                              out_shape=[1, 4]))
        yield f'chain_{n}.json', dumps(ir(nodes, [meta('x', [1, 4])])), _run('SELF', inputs='@io_x14')
    for n in (4000, 40000):
        gin = [meta(f'x{k}', [1]) for k in range(n)]
        nodes = [node('s', 'aten.cat.default', [meta(f'x{k}', [1], producer=f'x{k}') for k in range(n)],
                      attrs={'_tensor_list_sizes': [n], 'dim': 0}, out_shape=[n])]
        yield f'inputs_{n}.json', dumps(ir(nodes, gin)), _run('SELF', inputs=f'@io_many_{n}')
    # Zip with n storages (and n tensors in the state dict), and n unrelated entries.
    for n in (6000, 60000):
        entries = [(f'w{k}', 'float32', str(k), 1, 0, [1], [1]) for k in range(n)]
        storages = {str(k): b'\0\0\0\0' for k in range(n)}
        yield f'zip_storages_{n}.pt', torch_save(state_dict_pickle(entries), storages), \
            _run('@relu_ir', weights='SELF', inputs='@io_x14')
        yield f'zip_entries_{n}.pt', torch_save(state_dict_pickle([]), {}, extra=[(f'junk/{k}', b'') for k in range(n)]), \
            _run('@relu_ir', weights='SELF', inputs='@io_x14')
        # safetensors with n tensors.
        yield f'st_tensors_{n}.safetensors', safetensors([st_tensor(f'w{k}', 'float32', [1]) for k in range(n)]), \
            _run('@relu_ir', weights='SELF', inputs='@io_x14')


def pt_views():
    """torch.save tensors whose (offset, size, stride) against their storage lie, as weights and inputs."""
    cases = [
        ([2**62], [0], 1), ([2**62], [1], 1), ([2**61, 2], [0, 0], 1), ([2**32, 2**32], [0, 0], 1),
        ([4], [2**62], 4), ([4], [-1], 4), ([2, 2], [-2**62, 1], 4), ([4], [1], 3), ([1, 4], [4, 1], 1),
        ([3], [1], 2**62), ([3], [1], -1), ([2**31, 2**31], [1, 1], 16), ([-1], [1], 4), ([4], [2**63 - 1], 4),
        ([0, 2**62], [1, 1], 0), ([2, 3], [3, 1], 5),
    ]
    for k, (size, stride, numel) in enumerate(cases):
        for off in (0, 2**62, -1):
            if off and k % 3:
                continue
            for target in ('weight', 'input'):
                name = 'w' if target == 'weight' else 'input.x'
                pkl = state_dict_pickle([(name, 'float32', '0', numel, off, size, stride)])
                data = torch_save(pkl, {'0': b'\0' * 4 * max(0, min(numel, 16))})
                if target == 'weight':
                    yield f'view_w_{k}_{off}.pt', data, _run('@w_ir_4', weights='SELF', inputs='@io_x4')
                else:
                    yield f'view_in_{k}_{off}.pt', data, _run('@relu4_ir', weights='@empty', inputs='SELF')
                # An IR that declares exactly the view's shape and only selects from it (no big output),
                # so the binder / input copy is what meets the view.
                src = meta('x', size, producer='x') if target == 'input' else meta('p_w', size)
                sel = node('s', 'aten.select.int', [src], attrs={'dim': 0, 'index': 0}, out_shape=size[1:])
                d = ir([sel], [meta('x', size)] if target == 'input' else [],
                       weights=[] if target == 'input' else [meta('w', size)],
                       mapping={} if target == 'input' else {'p_w': 'w'})
                stem = f'view_{target}_{k}_{off}_exact'
                yield f'{stem}.json', dumps(d), _run('SELF', weights='@empty' if target == 'input' else stem + '.pt',
                                                      inputs=stem + '.pt' if target == 'input' else '@io_none')
                yield f'{stem}.pt', data, None
    # Storage numel lies (bigger than the data entry), storage key missing, dtype/storage class mismatch.
    for k, (numel, key, cls) in enumerate(((2**62, '0', 'FloatStorage'), (2**31, '0', 'FloatStorage'),
                                           (4, 'missing', 'FloatStorage'), (4, '0', 'os.system'),
                                           (4, '../0', 'FloatStorage'), (-4, '0', 'FloatStorage'),
                                           (4, '0', 'QInt8Storage'), (4, '0' * 5000, 'FloatStorage'))):
        p = Pickle().global_('collections', 'OrderedDict').op(b')R(').value('w')
        p.global_('torch._utils', '_rebuild_tensor_v2').op(b'((').value('storage')
        p.global_('torch', cls).value(key).value('cpu').value(numel).op(b'tQ')
        p.value(0).tuple_((4,)).tuple_((1,)).value(False).global_('collections', 'OrderedDict').op(b')RtR')
        data = torch_save(p.op(b'u').done(), {'0': b'\0' * 16})
        yield f'storage_lie_{k}.pt', data, _run('@w_ir_4', weights='SELF', inputs='@io_x4')


def zip_tables():
    """Central directory / local header / EOCD fields that lie about counts, sizes and offsets."""
    good = simple_pt([('w', 'float32', [4], [1.0, 2.0, 3.0, 4.0])])
    e = eocd_offset(good)
    cd = struct.unpack_from('<I', good, e + 16)[0]
    muts = []
    for v in (0, 1, 3, 0xFFFF):
        muts.append(('entries_disk', e + 8, '<H', v))
        muts.append(('entries_total', e + 10, '<H', v))
    for v in (0, 1, 0xFFFFFFFF, len(good), cd + 1, cd - 1):
        muts.append(('cd_size', e + 12, '<I', v))
        muts.append(('cd_offset', e + 16, '<I', v))
    for v in (1, 0xFFFF):
        muts.append(('comment_len', e + 20, '<H', v))
    # First central header: sizes, name length, extra length, local header offset.
    for field, off, fmt in (('c_method', 10, '<H'), ('c_csize', 20, '<I'), ('c_usize', 24, '<I'),
                            ('c_namelen', 28, '<H'), ('c_extralen', 30, '<H'), ('c_local', 42, '<I')):
        for v in (0, 1, 0xFFFF if fmt == '<H' else 0xFFFFFFFF, 12345):
            for which in range(3):  # data.pkl, the storage, version
                h = cd
                for _ in range(which):
                    nl, el, cl = struct.unpack_from('<HHH', good, h + 28)
                    h += 46 + nl + el + cl
                muts.append((f'{field}_{which}', h + off, fmt, v))
    # Local header of the storage entry.
    lh = good.find(b'PK\x03\x04', 30)
    for field, off, fmt in (('l_namelen', 26, '<H'), ('l_extralen', 28, '<H'), ('l_csize', 18, '<I'),
                            ('l_method', 8, '<H')):
        for v in (0, 0xFFFF, 8, 99):
            muts.append((field, lh + off, fmt, v))
    for k, (name, off, fmt, v) in enumerate(muts):
        yield f'{name}_{k}.pt', patch(good, off, fmt, v), _run('@w_ir_4', weights='SELF', inputs='@io_x4')
    # Zip64 EOCD with huge counts; duplicated entries; an entry named like a storage but a directory.
    z64 = good[:e] + b'PK\x06\x06' + struct.pack('<QHHIIQQQQ', 44, 45, 45, 0, 0, 2**40, 2**40, 2**40, 2**50) + \
        b'PK\x06\x07' + struct.pack('<IQI', 0, e, 1) + good[e:e + 8] + b'\xff\xff\xff\xff' * 3 + b'\0\0'
    yield 'zip64_lie.pt', z64, _run('@w_ir_4', weights='SELF', inputs='@io_x4')
    dup = torch_save(state_dict_pickle([('w', 'float32', '0', 4, 0, [4], [1])]), {'0': b'\0' * 16},
                     extra=[('archive/data/0', b'\0' * 4), ('archive/data.pkl', b'\x80\x02N.')])
    yield 'zip_duplicates.pt', dup, _run('@w_ir_4', weights='SELF', inputs='@io_x4')
