#!/usr/bin/env python3
"""Builds the committed malformed-input suite: tests/malformed/{ir,safetensors,torchsave,_good}/ and
the case list in tests/malformed/manifest.json (expected outcomes are left as they are for cases
that already exist; tools/hostile/update_malformed.py records them from the native library).

Actions (what tests/cpp/unit/malformed_test.cpp and npm/test/malformed.test.mjs do with a case):
  load_ir  parse the IR file                        (JS: loadIR(ir, {compile: false}))
  compile  parse, validate and compile the IR       (JS: loadIR(ir, {compile: true}))
  bind     compile, then bind the weights file      (JS: loadIR(ir, {weights}))
  run      compile, bind (weights optional), run with the inline inputs (JS: model.execute([...]))

    python3 tools/hostile/make_malformed.py"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_lib import (Pickle, dumps, ir, meta, node, patch, safetensors, simple_pt, st_tensor,
                         state_dict_pickle, torch_save, eocd_offset)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
OUT = os.path.join(REPO, 'tests', 'malformed')
CASES = []
FILES = {}


def add(name, what, action, ir_file, weights=None, inputs=None):
    c = {'name': name, 'what': what, 'action': action, 'ir': ir_file}
    if weights:
        c['weights'] = weights
    if inputs is not None:
        c['inputs'] = inputs
    CASES.append(c)


def f(path, data):
    FILES[path] = data if isinstance(data, bytes) else data.encode()
    return path


X14 = meta('x', [1, 4], producer='x')
RELU = ir([node('relu', 'aten.relu.default', [X14], out_shape=[1, 4])], [meta('x', [1, 4])], name='relu')
W4 = ir([node('mul', 'aten.mul.Tensor', [meta('x', [4], producer='x'), meta('p_w', [4])], out_shape=[4])],
        [meta('x', [4])], weights=[meta('w', [4])], mapping={'p_w': 'w'}, name='w4')
X_GOOD = [{'name': 'x', 'shape': [1, 4], 'dtype': 'float32', 'data': [1, -2, 3, -4]}]
GOOD_W = st_tensor('w', 'float32', [4], [1.0, 2.0, 3.0, 4.0])


def ir_cases():
    f('_good/relu.json', dumps(RELU))
    f('_good/w4.json', dumps(W4))
    text = json.dumps(ir([node('relu', 'aten.relu.default', [X14], out_shape=[1, 4], attrs={'k': [1, 2]})],
                         [meta('x', [1, 4])], constants={'k': {'data': [1.0], 'dtype': 'float32'}}))
    add('ir_empty_file', 'zero-byte IR', 'load_ir', f('ir/empty.json', b''))
    add('ir_not_object', 'top level is an array', 'load_ir', f('ir/not_object.json', '[1, 2]'))
    for sec in ('graph_inputs', 'nodes', 'attrs', 'constants', 'producer_node'):
        cut = text.index(f'"{sec}"') + len(sec) + 6
        add(f'ir_truncated_in_{sec}', f'file ends inside {sec}', 'load_ir', f(f'ir/truncated_{sec}.json', text[:cut]))
    add('ir_nodes_not_array', 'nodes is an object', 'load_ir', f('ir/nodes_not_array.json', dumps(dict(RELU, nodes={}))))

    def shaped(fname, shape, action='compile', dtype='float32'):
        d = ir([node('relu', 'aten.relu.default', [meta('x', shape, dtype, producer='x')], out_shape=[1, 4])],
               [meta('x', shape, dtype)])
        return f(f'ir/{fname}.json', dumps(d))
    add('ir_shape_negative', 'graph input dim -1', 'load_ir', shaped('shape_negative', [-1, 4]))
    add('ir_shape_nan', 'graph input dim NaN', 'load_ir', shaped('shape_nan', [float('nan'), 4]))
    add('ir_shape_float', 'graph input dim 1.5', 'load_ir', shaped('shape_float', [1.5, 4]))
    add('ir_shape_beyond_int64', 'graph input dim 2^64', 'load_ir', shaped('shape_beyond_int64', [2**64]))
    add('ir_shape_huge', 'graph input [2^62]', 'compile', shaped('shape_huge', [2**62]))
    add('ir_shape_wraps_to_zero', 'graph input [2^32, 2^32, 4]: bytes wrap to 0', 'compile',
        shaped('shape_wraps', [2**32, 2**32, 4]))
    add('ir_dtype_unknown', 'dtype float128', 'load_ir', shaped('dtype_unknown', [1, 4], dtype='float128'))

    relu = lambda name, src, idx=0: node(name, 'aten.relu.default', [meta(src, [1, 4], producer=src, idx=idx)],
                                         out_shape=[1, 4])
    gin = [meta('x', [1, 4])]
    graphs = {
        'duplicate_node': ('two nodes named a', [relu('a', 'x'), relu('a', 'a')], gin),
        'duplicate_input': ('two graph inputs named x', [relu('a', 'x')], gin * 2),
        'cycle': ('a reads b, b reads a', [relu('a', 'b'), relu('b', 'a')], gin),
        'self_consumption': ('a reads its own output', [relu('a', 'a')], gin),
        'dangling_producer': ('producer_node names no node', [relu('a', 'nope')], gin),
        'output_idx_out_of_range': ('producer_output_idx 3 of a 1-output node', [relu('a', 'x'), relu('b', 'a', 3)], gin),
        'output_idx_negative': ('producer_output_idx -1', [relu('a', 'x'), relu('b', 'a', -1)], gin),
        'list_sizes_lie': ('_tensor_list_sizes [5] with one input',
                           [node('c', 'aten.cat.default', [X14], attrs={'_tensor_list_sizes': [5], 'dim': 0},
                                 out_shape=[5, 4])], gin),
        'getitem_out_of_range': ('getitem index 5 of a 2-output split',
                                 [node('s', 'aten.split.Tensor', [X14], outputs=[meta('s_0', [1, 2]), meta('s_1', [1, 2])],
                                       attrs={'split_size': 2, 'dim': 1}),
                                  node('g', '<built-in function getitem>', [meta('s', [1, 2], producer='s')],
                                       attrs={'index': 5}, out_shape=[1, 2])], gin),
        'unsupported_op': ('op_type aten.nope.default', [node('n', 'aten.nope.default', [X14], out_shape=[1, 4])], gin),
    }
    for name, (what, nodes, gi) in graphs.items():
        add(f'ir_{name}', what, 'compile', f(f'ir/{name}.json', dumps(ir(nodes, gi))))
    add('ir_graph_output_unknown', 'graph_outputs names no value', 'compile',
        f('ir/graph_output_unknown.json', dumps(ir([relu('a', 'x')], gin, outputs=[meta('zzz', [1, 4])]))))

    def creation(fname, op, attrs, shape, dtype='float32'):
        return f(f'ir/{fname}.json', dumps(ir([node('c', op, [], attrs=attrs, out_shape=shape, out_dtype=dtype)])))
    add('ir_zeros_huge', 'zeros([2^62])', 'compile', creation('zeros_huge', 'aten.zeros.default', {'size': [2**62]}, [2**62]))
    add('ir_zeros_wraps_to_zero', 'zeros([2^32, 2^32]): numel wraps to 0', 'compile',
        creation('zeros_wraps', 'aten.zeros.default', {'size': [2**32, 2**32]}, [2**32, 2**32]))
    add('ir_full_bytes_overflow', 'full([2^61, 2]) float32: bytes overflow', 'compile',
        creation('full_bytes_overflow', 'aten.full.default', {'size': [2**61, 2], 'fill_value': 1.0}, [2**61, 2]))
    add('ir_zeros_negative', 'zeros([-5])', 'compile', creation('zeros_negative', 'aten.zeros.default', {'size': [-5]}, [1]))
    add('ir_arange_huge', 'arange(2^62)', 'compile',
        creation('arange_huge', 'aten.arange.default', {'end': 2**62, 'dtype': 'torch.int64'}, [2**62], 'int64'))
    add('ir_arange_step_zero', 'arange(0, 10, 0)', 'compile',
        creation('arange_step_zero', 'aten.arange.start_step', {'start': 0, 'end': 10, 'step': 0}, [10]))
    x1 = meta('x', [1], producer='x')
    big = [2**62]
    for tail in ('sum', 'clone'):
        nodes = [node('e', 'aten.expand.default', [x1], attrs={'size': big}, out_shape=big),
                 node('t', f'aten.{tail}.default', [meta('e', big, producer='e')], out_shape=[] if tail == 'sum' else big)]
        add(f'ir_expand_huge_{tail}', f'expand([2^62]) then {tail}', 'run',
            f(f'ir/expand_huge_{tail}.json', dumps(ir(nodes, [meta('x', [1])]))),
            inputs=[{'name': 'x', 'shape': [1], 'dtype': 'float32', 'data': [1]}])
    scalar_in = [{'name': 'x', 'shape': [], 'dtype': 'float32', 'data': [2]}]
    for op, attrs in (('aten.split.Tensor', {'split_size': 1, 'dim': 0}), ('aten.chunk.default', {'chunks': 2, 'dim': 0}),
                      ('aten.unbind.int', {'dim': 0}), ('aten.narrow.default', {'dim': 0, 'start': 0, 'length': 1}),
                      ('aten.unflatten.int', {'dim': 0, 'sizes': [1, 1]}),
                      ('aten.split_with_sizes.default', {'split_sizes': [1], 'dim': 0})):
        short = op.split('.')[1]
        nodes = [node('o', op, [meta('x', [], producer='x')], outputs=[meta('o_0', [1]), meta('o_1', [1])], attrs=attrs)]
        add(f'ir_{short}_on_0d', f'{op} with dim 0 on a 0-d input', 'run',
            f(f'ir/{short}_on_0d.json', dumps(ir(nodes, [meta('x', [])], outputs=[meta('o_0', [1])]))), inputs=scalar_in)
    nodes = [node('o', 'aten.split.Tensor', [meta('x', [8], producer='x')], outputs=[meta('o_0', [4])],
                  attrs={'split_size': -1, 'dim': 0})]
    add('ir_split_negative_size', 'split with split_size -1', 'run',
        f('ir/split_negative_size.json', dumps(ir(nodes, [meta('x', [8])]))),
        inputs=[{'name': 'x', 'shape': [8], 'dtype': 'float32', 'data': [0] * 8}])
    deep = 30000
    raw = dumps(RELU).replace(b'"attrs":{}', b'"attrs":{"k":' + b'{"a":' * deep + b'1' + b'}' * deep + b'}')
    add('ir_attr_nested_deep', f'an attr nested {deep} deep', 'load_ir', f('ir/attr_nested_deep.json', raw))
    add('ir_toplevel_nested_deep', f'the document nested {deep} deep', 'load_ir',
        f('ir/toplevel_nested_deep.json', b'[' * deep + b']' * deep))
    # Lifted constants that do not fit their declaration.
    mulc = [node('m', 'aten.mul.Tensor', [meta('x', [1, 4], producer='x'), meta('c_k', [2, 2])], out_shape=[2, 2])]
    for name, data, dtype in (('wrong_size', [1, 2, 3], 'float32'), ('wrong_depth', [[1, 2], [3]], 'float32'),
                              ('bad_dtype', [[1, 2], [3, 4]], 'float512'), ('strings', [['a', 'b'], ['c', 'd']], 'float32')):
        d = ir(mulc, gin, weights=[meta('k', [2, 2])], mapping={'c_k': 'k'}, constants={'k': {'data': data, 'dtype': dtype}})
        add(f'ir_constant_{name}', f'constant k [2, 2] given {json.dumps(data)} ({dtype})', 'compile',
            f(f'ir/constant_{name}.json', dumps(d)))
    add('ir_weight_missing', 'a node reads p_w, no weight bound', 'bind', '_good/w4.json',
        f('safetensors/empty.safetensors', safetensors([])))


def st_cases():
    good = safetensors([GOOD_W])
    n = struct.unpack('<Q', good[:8])[0]
    bind = lambda name, what, data: add(f'st_{name}', what, 'bind', '_good/w4.json', f(f'safetensors/{name}.safetensors', data))
    bind('empty_file', 'zero bytes', b'')
    bind('short_length', 'file shorter than the 8-byte length', good[:4])
    bind('length_huge', 'header length 2^63', struct.pack('<Q', 2**63) + good[8:])
    bind('length_past_end', 'header length past the end of the file', struct.pack('<Q', len(good)) + good[8:])
    bind('header_not_json', 'header is not JSON', safetensors([], header_override=b'not json'))
    bind('header_truncated', 'length covers the header, header JSON cut', struct.pack('<Q', n) + good[8:8 + n - 5] + b'     ')
    bind('data_truncated', 'data section shorter than the offsets', good[:-6])

    def hdr(name, what, entry, data=b'\0' * 16, extra=None):
        h = {'w': entry}
        if extra:
            h.update(extra)
        bind(name, what, safetensors([], header_override=json.dumps(h).encode()) + data)
    hdr('offsets_reversed', 'data_offsets [16, 0]', {'dtype': 'F32', 'shape': [4], 'data_offsets': [16, 0]})
    hdr('offsets_out_of_range', 'data_offsets past the data', {'dtype': 'F32', 'shape': [4], 'data_offsets': [0, 1000]})
    hdr('offsets_overlap', 'two tensors share bytes', {'dtype': 'F32', 'shape': [4], 'data_offsets': [0, 16]},
        extra={'v': {'dtype': 'F32', 'shape': [2], 'data_offsets': [8, 16]}})
    hdr('offsets_wrap', 'data_offsets [2^64-8, 8]', {'dtype': 'F32', 'shape': [4], 'data_offsets': [2**64 - 8, 8]})
    hdr('size_mismatch', 'shape [4] F32 over 12 bytes', {'dtype': 'F32', 'shape': [4], 'data_offsets': [0, 12]})
    hdr('shape_negative', 'shape [-4]', {'dtype': 'F32', 'shape': [-4], 'data_offsets': [0, 16]})
    hdr('shape_float', 'shape [1.5]', {'dtype': 'F32', 'shape': [1.5], 'data_offsets': [0, 16]})
    hdr('shape_huge', 'shape [2^62] over 16 bytes', {'dtype': 'F32', 'shape': [2**62], 'data_offsets': [0, 16]})
    hdr('shape_wraps_to_zero', 'shape [2^32, 2^32]: numel wraps to 0', {'dtype': 'F32', 'shape': [2**32, 2**32],
                                                                         'data_offsets': [0, 0]}, data=b'')
    hdr('dtype_unknown', 'dtype Q4', {'dtype': 'Q4', 'shape': [4], 'data_offsets': [0, 16]})
    hdr('entry_not_object', 'tensor entry is a number', 5)
    bind('duplicate_key', 'key w twice in the header',
         safetensors([], header_override=b'{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},'
                                         b'"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}') + b'\0' * 16)
    deep = 30000
    bind('header_nested_deep', f'__metadata__ nested {deep} deep',
         safetensors([], header_override=b'{"__metadata__":{"a":' + b'[' * deep + b']' * deep + b'}}'))


def pt_cases():
    good = simple_pt([('w', 'float32', [4], [1.0, 2.0, 3.0, 4.0])])
    bind = lambda name, what, data: add(f'pt_{name}', what, 'bind', '_good/w4.json', f(f'torchsave/{name}.pt', data))
    e = eocd_offset(good)
    cd = struct.unpack_from('<I', good, e + 16)[0]
    lh2 = good.find(b'PK\x03\x04', 30)
    bind('truncated_eocd', 'cut inside the end-of-central-directory record', good[:-10])
    bind('truncated_central_dir', 'cut inside the central directory', good[:cd + 20])
    bind('truncated_data', 'cut inside the storage entry data', good[:lh2 + 40])
    bind('eocd_count_lie', 'EOCD says 65535 entries', patch(patch(good, e + 8, '<H', 0xFFFF), e + 10, '<H', 0xFFFF))
    bind('cd_offset_out_of_range', 'central directory offset past the end', patch(good, e + 16, '<I', 0x7FFFFFF0))
    bind('cd_size_lie', 'central directory size 1', patch(good, e + 12, '<I', 1))
    bind('local_name_length_lie', 'local header name length 0xFFFF', patch(good, lh2 + 26, '<H', 0xFFFF))
    # second central header (the storage): compressed size lies.
    nl, el, cl = struct.unpack_from('<HHH', good, cd + 28)
    c2 = cd + 46 + nl + el + cl
    bind('csize_lie', 'storage entry compressed size 0xFFFFFFF0', patch(good, c2 + 20, '<I', 0xFFFFFFF0))
    bind('method_unknown', 'storage entry compression method 99', patch(good, c2 + 10, '<H', 99))
    bind('no_data_pkl', 'zip without data.pkl', _zip_without_pkl())
    pkl = state_dict_pickle([('w', 'float32', '0', 4, 0, [4], [1])])
    store = {'0': struct.pack('<4f', 1, 2, 3, 4)}
    bind('pickle_truncated', 'data.pkl cut in half', torch_save(pkl[:len(pkl) // 2], store))
    bind('pickle_bad_opcode', 'opcode 0xff in data.pkl', torch_save(b'\x80\x02\xff.', store))
    bind('pickle_global_os_system', 'GLOBAL os.system', torch_save(b'\x80\x02cos\nsystem\nX\x02\x00\x00\x00ls\x85R.', store))
    bind('pickle_stack_underflow', 'TUPLE without MARK, REDUCE on an empty stack', torch_save(b'\x80\x02R.', store))
    bind('pickle_memo_missing', 'BINGET of an unset memo slot', torch_save(b'\x80\x02h\x63.', store))
    bind('pickle_not_dict', 'data.pkl is a list', torch_save(b'\x80\x02]q\x00.', store))

    def view(name, what, size, stride, offset=0, numel=4, data=None):
        p = state_dict_pickle([('w', 'float32', '0', numel, offset, size, stride)])
        bind(name, what, torch_save(p, {'0': data if data is not None else struct.pack('<4f', 1, 2, 3, 4)}))
    view('view_stride0_huge', 'size [2^62] stride [0]', [2**62], [0])
    # The same stride-0 view against an IR that declares exactly [2^62] and only selects from it.
    sel = ir([node('s', 'aten.select.int', [meta('p_w', [2**62])], attrs={'dim': 0, 'index': 0}, out_shape=[])],
             weights=[meta('w', [2**62])], mapping={'p_w': 'w'}, name='select_w')
    add('pt_view_stride0_huge_declared', 'size [2^62] stride [0] bound where the IR declares w [2^62]', 'bind',
        f('ir/select_w_huge.json', dumps(sel)), 'torchsave/view_stride0_huge.pt')
    view('view_out_of_range', 'size [4] at offset 2 of a 4-element storage', [4], [1], offset=2)
    view('view_negative_stride', 'stride [-1]', [4], [-1])
    view('view_extent_overflow', 'size [4] stride [2^62]', [4], [2**62])
    view('view_negative_size', 'size [-4]', [-4], [1])
    view('storage_numel_lie', 'storage numel 2^62 over 16 bytes', [4], [1], numel=2**62)
    view('storage_short', 'storage numel 4 over 8 bytes', [4], [1], data=b'\0' * 8)
    p = state_dict_pickle([('w', 'float32', '7', 4, 0, [4], [1])])
    bind('storage_missing', "storage key '7' not in the zip", torch_save(p, store))
    bind('zip_dotdot_name', "entry named '../data.pkl'", torch_save(pkl, store, prefix='..'))


def _zip_without_pkl():
    import io
    import zipfile
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:
        z.writestr('archive/data/0', b'\0' * 16)
        z.writestr('archive/version', b'3\n')
    return b.getvalue()


def binder_cases():
    for name, what, t in (('wrong_shape', 'w is [3], the IR says [4]', st_tensor('w', 'float32', [3])),
                          ('wrong_dtype', 'w is int64, the IR says float32', st_tensor('w', 'int64', [4])),
                          ('missing', 'the file holds v, not w', st_tensor('v', 'float32', [4])),
                          ('scalar', 'w is 0-d', st_tensor('w', 'float32', []))):
        add(f'bind_{name}', what, 'bind', '_good/w4.json', f(f'safetensors/bind_{name}.safetensors', safetensors([t])))
    f('safetensors/good_w.safetensors', safetensors([GOOD_W]))
    for name, what, inputs in (
            ('wrong_shape', 'x given [2, 2]', [{'name': 'x', 'shape': [2, 2], 'dtype': 'float32', 'data': [1, 2, 3, 4]}]),
            ('wrong_dtype', 'x given int64', [{'name': 'x', 'shape': [1, 4], 'dtype': 'int64', 'data': [1, 2, 3, 4]}]),
            ('no_inputs', 'no input given', []),
            ('two_inputs', 'two inputs for one', X_GOOD * 2),
            ('scalar', 'x given as a 0-d tensor', [{'name': 'x', 'shape': [], 'dtype': 'float32', 'data': [1]}]),
            ('empty', 'x given [0, 4]', [{'name': 'x', 'shape': [0, 4], 'dtype': 'float32', 'data': []}])):
        add(f'run_input_{name}', what, 'run', '_good/relu.json', inputs=inputs)


def main():
    ir_cases()
    st_cases()
    pt_cases()
    binder_cases()
    for path, data in FILES.items():
        full = os.path.join(OUT, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'wb') as fh:
            fh.write(data)
    man_path = os.path.join(OUT, 'manifest.json')
    old = {}
    if os.path.exists(man_path):
        old = {c['name']: c for c in json.load(open(man_path))['cases']}
    names = [c['name'] for c in CASES]
    assert len(set(names)) == len(names), 'duplicate case names'
    for c in CASES:
        for key in ('expect', 'js_expect', 'pending'):
            if key in old.get(c['name'], {}):
                c[key] = old[c['name']][key]
    doc = {'about': 'Malformed-input suite (issue 10 item 4). Built by tools/hostile/make_malformed.py; expected '
                    'outcomes recorded by tools/hostile/update_malformed.py. {dir} = this directory. A case with '
                    '"pending" is skipped until its outcome is a tir error (re-record after the fixes land).',
           'cases': CASES}
    with open(man_path, 'w') as fh:
        json.dump(doc, fh, indent=1)
        fh.write('\n')
    print(f'{len(CASES)} cases, {len(FILES)} files -> {OUT}')


if __name__ == '__main__':
    main()
