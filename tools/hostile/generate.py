#!/usr/bin/env python3
"""Writes the hostile corpus into build/hostile/<family>/ plus build/hostile/manifest.jsonl, one line
per run: {"id", "family", "cmd": "info"|"run", "ir", "weights", "inputs"} (paths relative to the repo
root). Deterministic: every family draws from random.Random(<family name>).

    python3 tools/hostile/generate.py [--out build/hostile] [--only fam1,fam2] [--scale 1.0]

--scale multiplies the number of random mutations per seed file (the crafted families are fixed)."""
import argparse
import glob
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_lib import (dumps, ir, meta, node, parse_safetensors, safetensors, simple_pt, st_tensor,
                         state_dict_pickle, torch_save)
import crafted
import crafted2

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
MODELS = os.path.join(REPO, 'tests', 'fixtures', 'models')
WEIGHTS = os.path.join(REPO, 'tests', 'fixtures', 'weights')
HOSTILE_INTS = [0, -1, 1, 2**31, 2**32, 2**62, 2**63 - 1, -2**63, 2**64, 10**30]
HOSTILE_VALUES = HOSTILE_INTS + [float('nan'), float('inf'), -float('inf'), 1e308, 0.5, '', 'x' * 70000, None,
                                 [], {}, [2**62], [-1], True, 'torch.float32', [[[[]]]]]


def base_assets():
    """Shared partners: the good files a hostile file is run with (weights, inputs, a small IR)."""
    f = lambda shape: st_tensor('input.x', 'float32', shape)
    relu = lambda shape: ir([node('r', 'aten.relu.default', [meta('x', shape, producer='x')], out_shape=shape)],
                            [meta('x', shape)])
    w_ir = ir([node('m', 'aten.mul.Tensor', [meta('x', [4], producer='x'), meta('p_w', [4])], out_shape=[4])],
              [meta('x', [4])], weights=[meta('w', [4])], mapping={'p_w': 'w'})
    # A safetensors IO whose input.x claims [2^31, 2^31] over 16 bytes.
    huge_hdr = json.dumps({'input.x': {'dtype': 'F32', 'shape': [2**31, 2**31], 'data_offsets': [0, 16]}}).encode()
    a = {
        'empty.safetensors': safetensors([]),
        'io_none.safetensors': safetensors([]),
        'io_x14.safetensors': safetensors([f([1, 4])]),
        'io_x1.safetensors': safetensors([f([1])]),
        'io_x4.safetensors': safetensors([f([4])]),
        'io_x8.safetensors': safetensors([f([8])]),
        'io_x22.safetensors': safetensors([f([2, 2])]),
        'io_x22_i64.safetensors': safetensors([st_tensor('input.x', 'int64', [2, 2])]),
        'io_x_huge.safetensors': safetensors([], header_override=huge_hdr) + b'\0' * 16,
        'io_scalar.safetensors': safetensors([f([])]),
        'io_scalar_idx.safetensors': safetensors([f([]), st_tensor('input.idx', 'int64', [1])]),
        'w0_14.safetensors': safetensors([st_tensor('w0', 'float32', [1, 4])]),
        'w_3.safetensors': safetensors([st_tensor('w', 'float32', [3])]),
        'w_i64.safetensors': safetensors([st_tensor('w', 'int64', [2, 2])]),
        'w_22x.safetensors': safetensors([st_tensor('w', 'float32', [2, 3])]),
        'w_scalar.safetensors': safetensors([st_tensor('w', 'float32', [])]),
        'w_huge_view.pt': torch_save(state_dict_pickle([('w', 'float32', '0', 4, 0, [2**62, 2], [0, 0])]),
                                     {'0': b'\0' * 16}),
        'w_stride0.pt': torch_save(state_dict_pickle([('w', 'float32', '0', 1, 0, [2, 2], [0, 0])]), {'0': b'\0' * 4}),
        'relu_ir.json': dumps(relu([1, 4])),
        'relu4_ir.json': dumps(relu([4])),
        'w_ir_4.json': dumps(w_ir),
    }
    for n in (4000, 40000):
        a[f'io_many_{n}.safetensors'] = safetensors([st_tensor(f'input.x{k}', 'float32', [1]) for k in range(n)])
    return a


def seed_models():
    """(name, model.json, weights, io) for every committed fixture with all three files (small ones)."""
    out = []
    for d in sorted(glob.glob(os.path.join(MODELS, '*', '*'))):
        files = [os.path.join(d, f) for f in ('model.json', 'weights.safetensors', 'io.safetensors')]
        if all(os.path.exists(p) for p in files) and os.path.getsize(files[0]) < 400_000:
            out.append((os.path.relpath(d, MODELS).replace('/', '_'), *files))
    return out


def rel(p):
    return os.path.relpath(p, REPO)


def ir_mutations(rng, scale):
    """Byte flips, truncations and structured JSON value swaps of the committed IRs."""
    for name, model, w, io in seed_models():
        text = open(model, 'rb').read()
        spec = {'cmd': 'run', 'ir': 'SELF', 'weights': rel(w), 'inputs': rel(io)}
        for k in range(int(6 * scale)):
            b = bytearray(text)
            for _ in range(rng.randint(1, 6)):
                b[rng.randrange(len(b))] = rng.choice(b'{}[]",:0123456789-eE.tfn \\\x00\xff')
            yield 'ir_byteflip', f'{name}_{k}.json', bytes(b), spec
        for k in range(int(4 * scale)):
            yield 'ir_truncate', f'{name}_{k}.json', text[:rng.randrange(len(text))], spec
        d = json.loads(text)
        paths = list(_paths(d))
        for k in range(int(14 * scale)):
            dd = json.loads(text)
            for _ in range(rng.randint(1, 3)):
                path = rng.choice(paths)
                tgt = dd
                try:
                    for p in path[:-1]:
                        tgt = tgt[p]
                    tgt[path[-1]] = rng.choice(HOSTILE_VALUES)
                except (KeyError, IndexError, TypeError):
                    pass
            yield 'ir_values', f'{name}_{k}.json', dumps(dd), spec
        # Structural: drop/duplicate/reorder nodes, swap producers.
        for k in range(int(4 * scale)):
            dd = json.loads(text)
            nodes = dd['nodes']
            if len(nodes) < 2:
                break
            op = rng.randrange(4)
            i, j = rng.randrange(len(nodes)), rng.randrange(len(nodes))
            if op == 0:
                del nodes[i]
            elif op == 1:
                nodes.insert(j, json.loads(json.dumps(nodes[i])))
            elif op == 2:
                nodes[i], nodes[j] = nodes[j], nodes[i]
            else:
                for inp in nodes[i]['inputs']:
                    if 'producer_node' in inp:
                        inp['producer_node'] = nodes[j]['name']
            yield 'ir_graph', f'{name}_{k}.json', dumps(dd), spec


def _paths(d, prefix=()):
    if isinstance(d, dict):
        for k, v in d.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d[:40]):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


def st_mutations(rng, scale):
    """safetensors weights and IO files: flips, truncation at every section, header value swaps."""
    for name, model, w, io in seed_models()[:12]:
        for role, path in (('weights', w), ('inputs', io)):
            raw = open(path, 'rb').read()
            spec = {'cmd': 'run', 'ir': rel(model), 'weights': 'SELF' if role == 'weights' else rel(w),
                    'inputs': 'SELF' if role == 'inputs' else rel(io)}
            n = struct.unpack('<Q', raw[:8])[0]
            cuts = sorted({0, 1, 7, 8, 9, 8 + n // 2, 8 + n - 1, 8 + n, 8 + n + 1, len(raw) - 1,
                           *[rng.randrange(len(raw)) for _ in range(int(2 * scale))]})
            for c in cuts:
                if c < len(raw):
                    yield 'st_truncate', f'{name}_{role}_{c}.safetensors', raw[:c], spec
            for k, v in enumerate((0, 1, n - 1, n + 1, len(raw), len(raw) - 7, 2**32, 2**62, 2**63, 2**64 - 1)):
                yield 'st_length', f'{name}_{role}_{k}.safetensors', struct.pack('<Q', v) + raw[8:], spec
            for k in range(int(3 * scale)):
                b = bytearray(raw)
                for _ in range(rng.randint(1, 4)):
                    b[rng.randrange(8, 8 + n)] = rng.randrange(256)
                yield 'st_byteflip', f'{name}_{role}_{k}.safetensors', bytes(b), spec
            header, data = parse_safetensors(raw)
            keys = [k for k in header if k != '__metadata__']
            for k in range(int(8 * scale)):
                h = json.loads(json.dumps(header))
                t = h[rng.choice(keys)]
                field = rng.choice(['dtype', 'shape', 'data_offsets', 'offset0', 'offset1', 'dim'])
                if field == 'dtype':
                    t['dtype'] = rng.choice(['F8', 'X', '', 'I64', 'BOOL', 'F64', 'C64', 5])
                elif field == 'shape':
                    t['shape'] = rng.choice([[2**62], [-1], [2**31, 2**31, 4], [1.5], ['a'], 7, [], [0], [2**64]])
                elif field == 'data_offsets':
                    t['data_offsets'] = rng.choice([[0], [5, 1], [0, 2**62], [-4, 0], [0, len(data) + 4],
                                                    [len(data), len(data) + 4], [2**64 - 4, 2**64 + 4], None, 'x'])
                elif field == 'dim':
                    t['shape'] = t['shape'] + [0]
                else:
                    i = 0 if field == 'offset0' else 1
                    t['data_offsets'][i] = rng.choice([0, 1, 3, len(data), 2**32 + t['data_offsets'][i]])
                hb = json.dumps(h).encode()
                yield 'st_header', f'{name}_{role}_{k}.safetensors', struct.pack('<Q', len(hb)) + hb + data, spec


def pt_mutations(rng, scale):
    """torch.save fixtures bound through an IR that clones every tensor the file holds."""
    expected = json.load(open(os.path.join(WEIGHTS, 'expected.json')))
    for fname in sorted(os.listdir(WEIGHTS)):
        if not fname.endswith('.pt'):
            continue
        raw = open(os.path.join(WEIGHTS, fname), 'rb').read()
        tensors = expected.get(fname, {})
        nodes, weights, mapping = [], [], {}
        for i, (key, t) in enumerate(sorted(tensors.items())):
            if not isinstance(t, dict) or 'shape' not in t:
                continue
            ph = f'p_t{i}'
            weights.append(meta(key, t['shape'], t['dtype']))
            mapping[ph] = key
            nodes.append(node(f'c{i}', 'aten.clone.default', [meta(ph, t['shape'], t['dtype'])],
                              out_shape=t['shape'], out_dtype=t['dtype']))
        if not nodes:
            nodes = [node('r', 'aten.relu.default', [meta('x', [1, 4], producer='x')], out_shape=[1, 4])]
        bind_ir = ir(nodes, [meta('x', [1, 4])], outputs=[n['outputs'][0] for n in nodes], weights=weights,
                     mapping=mapping)
        yield '_base', f'bind_{fname}.json', dumps(bind_ir), None
        spec = {'cmd': 'run', 'ir': f'build/hostile/_base/bind_{fname}.json', 'weights': 'SELF',
                'inputs': 'build/hostile/_base/io_x14.safetensors'}
        stem = fname[:-3]
        for k in range(int(10 * scale)):
            b = bytearray(raw)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            yield 'pt_byteflip', f'{stem}_{k}.pt', bytes(b), spec
        for k in range(int(6 * scale)):
            yield 'pt_truncate', f'{stem}_{k}.pt', raw[:rng.randrange(len(raw))], spec
        # Flip bytes inside the pickle only (the zip stays valid): ints, opcodes, strings.
        import zipfile, io
        try:
            z = zipfile.ZipFile(io.BytesIO(raw))
        except zipfile.BadZipFile:
            continue
        pkl_name = next((n for n in z.namelist() if n.endswith('data.pkl')), None)
        if not pkl_name:
            continue
        pkl = z.read(pkl_name)
        others = [(n, z.read(n)) for n in z.namelist() if n != pkl_name]
        for k in range(int(14 * scale)):
            b = bytearray(pkl)
            for _ in range(rng.randint(1, 3)):
                pos = rng.randrange(len(b))
                b[pos] = rng.choice([0, 1, 0x7f, 0x80, 0xff, b[pos] ^ 1, ord('('), ord('t'), ord('R'), ord('.')])
            out = io.BytesIO()
            with zipfile.ZipFile(out, 'w') as zz:
                zz.writestr(pkl_name, bytes(b))
                for n, d in others:
                    zz.writestr(n, d)
            yield 'pt_pickle', f'{stem}_{k}.pt', out.getvalue(), spec


CRAFTED = {'creation': crafted.creation, 'dim0d': crafted.dim0d, 'structure': crafted.structure,
           'constants_inputs': crafted.constants_inputs, 'nesting': crafted2.nesting,
           'superlinear': crafted2.superlinear, 'pt_views': crafted2.pt_views, 'zip_tables': crafted2.zip_tables}
MUTATED = {'ir': ir_mutations, 'st': st_mutations, 'pt': pt_mutations}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', default=os.path.join(REPO, 'build', 'hostile'))
    ap.add_argument('--only', default='', help='comma-separated family generators (' +
                    ','.join(list(CRAFTED) + list(MUTATED)) + ')')
    ap.add_argument('--scale', type=float, default=1.0)
    args = ap.parse_args()
    only = set(filter(None, args.only.split(',')))
    out = os.path.abspath(args.out)
    base = os.path.join(out, '_base')
    os.makedirs(base, exist_ok=True)
    for fname, data in base_assets().items():
        open(os.path.join(base, fname), 'wb').write(data)
    lines, counts = [], {}

    def emit(family, fname, data, spec):
        d = os.path.join(out, family)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, fname)
        open(path, 'wb').write(data)
        if spec is None:
            return
        entry = {'id': f'{family}/{fname}', 'family': family}
        for key in ('cmd', 'ir', 'weights', 'inputs'):
            v = spec.get(key)
            if v == 'SELF':
                v = rel(path)
            elif isinstance(v, str) and v.endswith('.pt') and '/' not in v:
                v = rel(os.path.join(d, v))  # a sibling file of the same family
            elif isinstance(v, str) and v.startswith('@'):
                v = rel(os.path.join(base, next(f for f in os.listdir(base) if f.rsplit('.', 1)[0] == v[1:])))
            entry[key] = v
        lines.append(entry)
        counts[family] = counts.get(family, 0) + 1

    for fam, gen in CRAFTED.items():
        if only and fam not in only:
            continue
        for fname, data, spec in gen():
            emit(fam, fname, data, spec)
    for fam, gen in MUTATED.items():
        if only and fam not in only:
            continue
        for family, fname, data, spec in gen(random.Random(fam), args.scale):
            emit(family, fname, data, spec)
    man = os.path.join(out, 'manifest.jsonl')
    if only and os.path.exists(man):  # keep the other families' entries
        done = {e['family'] for e in lines}
        lines = [e for e in map(json.loads, open(man)) if e['family'] not in done] + lines
    with open(man, 'w') as f:
        for e in lines:
            f.write(json.dumps(e) + '\n')
    for fam in sorted(counts):
        print(f'{fam:18s} {counts[fam]:6d}')
    print(f'{"total":18s} {len(lines):6d}  -> {out}/manifest.jsonl')


if __name__ == '__main__':
    main()
