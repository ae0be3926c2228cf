"""Writers for the hostile corpus: IR JSON, safetensors and torch.save files built byte by byte, so
that lengths, offsets, strides and counts can lie in ways no well-behaved writer would produce.
Pure standard library (no torch), deterministic for a given input."""
import json
import struct
import zipfile
import io

DTYPE_ST = {'float32': 'F32', 'float64': 'F64', 'float16': 'F16', 'bfloat16': 'BF16', 'int64': 'I64',
            'int32': 'I32', 'int16': 'I16', 'int8': 'I8', 'uint8': 'U8', 'bool': 'BOOL'}
ITEMSIZE = {'F32': 4, 'F64': 8, 'F16': 2, 'BF16': 2, 'I64': 8, 'I32': 4, 'I16': 2, 'I8': 1, 'U8': 1, 'BOOL': 1}
STORAGE = {'float32': 'FloatStorage', 'float64': 'DoubleStorage', 'float16': 'HalfStorage',
           'bfloat16': 'BFloat16Storage', 'int64': 'LongStorage', 'int32': 'IntStorage',
           'int16': 'ShortStorage', 'int8': 'CharStorage', 'uint8': 'ByteStorage', 'bool': 'BoolStorage'}
STRUCT = {'F32': 'f', 'F64': 'd', 'I64': 'q', 'I32': 'i', 'I16': 'h', 'I8': 'b', 'U8': 'B', 'BOOL': '?'}


# ---------------------------------------------------------------- IR JSON

def meta(name, shape, dtype='float32', producer=None, idx=None):
    m = {'name': name, 'shape': list(shape), 'dtype': dtype}
    if producer is not None:
        m['producer_node'] = producer
        m['producer_output_idx'] = 0 if idx is None else idx
    return m


def node(name, op, inputs=(), outputs=None, attrs=None, out_shape=(1,), out_dtype='float32'):
    if outputs is None:
        outputs = [meta(name, out_shape, out_dtype)]
    return {'name': name, 'op_type': op, 'inputs': list(inputs), 'outputs': list(outputs), 'attrs': attrs or {}}


def ir(nodes, inputs=(), outputs=None, weights=(), mapping=None, constants=None, name='hostile'):
    if outputs is None:
        outputs = [dict(o) for o in nodes[-1]['outputs'][:1]] if nodes else []
    d = {'model_name': name, 'pytorch_version': '2.14.1', 'graph_inputs': list(inputs),
         'graph_outputs': list(outputs), 'weights': list(weights), 'weight_name_mapping': mapping or {},
         'nodes': list(nodes)}
    if constants is not None:
        d['constants'] = constants
    return d


def dumps(d):
    # allow_nan: Python's json writes NaN/Infinity as bare tokens, as pytorch-ir does.
    return json.dumps(d, separators=(',', ':')).encode()


# ---------------------------------------------------------------- safetensors

def pack_values(st_dtype, values):
    if st_dtype in ('F16', 'BF16'):
        return b''.join(struct.pack('<H', int(v) & 0xFFFF) for v in values)
    return struct.pack('<%d%s' % (len(values), STRUCT[st_dtype]), *values)


def safetensors(tensors, metadata=None, header_override=None, length_override=None):
    """tensors: [(name, st_dtype, shape, raw_bytes)] laid out back to back."""
    header, blobs, off = {}, [], 0
    if metadata is not None:
        header['__metadata__'] = metadata
    for name, dt, shape, raw in tensors:
        header[name] = {'dtype': dt, 'shape': list(shape), 'data_offsets': [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    hb = header_override if header_override is not None else json.dumps(header, separators=(',', ':')).encode()
    hb += b' ' * ((8 - len(hb) % 8) % 8)
    n = len(hb) if length_override is None else length_override
    return struct.pack('<Q', n & 0xFFFFFFFFFFFFFFFF) + hb + b''.join(blobs)


def st_tensor(name, dtype, shape, values=None):
    dt = DTYPE_ST.get(dtype, dtype)
    n = 1
    for s in shape:
        n *= s
    if values is None:
        values = [0] * n if dt not in ('F32', 'F64') else [0.5] * n
    return (name, dt, list(shape), pack_values(dt, values))


def parse_safetensors(b):
    n = struct.unpack('<Q', b[:8])[0]
    return json.loads(b[8:8 + n]), b[8 + n:]


# ---------------------------------------------------------------- pickle / torch.save

class Pickle:
    """Emits protocol-2 opcodes directly (the writer torch.save uses), so any field can lie."""

    def __init__(self):
        self.b = bytearray(b'\x80\x02')

    def op(self, raw):
        self.b += raw
        return self

    def global_(self, mod, name):
        return self.op(b'c' + mod.encode() + b'\n' + name.encode() + b'\n')

    def int_(self, v):
        if 0 <= v < 256:
            return self.op(b'K' + bytes([v]))
        if -2**31 <= v < 2**31:
            return self.op(b'J' + struct.pack('<i', v))
        raw = v.to_bytes((v.bit_length() + 8) // 8, 'little', signed=True)
        return self.op(b'\x8a' + bytes([len(raw)]) + raw)  # LONG1

    def str_(self, s):
        raw = s.encode()
        return self.op(b'X' + struct.pack('<I', len(raw)) + raw)

    def tuple_(self, items):
        self.op(b'(')
        for it in items:
            self.value(it)
        return self.op(b't')

    def value(self, v):
        if isinstance(v, bool):
            return self.op(b'\x88' if v else b'\x89')
        if isinstance(v, int):
            return self.int_(v)
        if isinstance(v, str):
            return self.str_(v)
        if isinstance(v, tuple):
            return self.tuple_(v)
        if isinstance(v, float):
            return self.op(b'G' + struct.pack('>d', v))
        if v is None:
            return self.op(b'N')
        raise TypeError(v)

    def tensor(self, key, dtype, numel, offset, size, stride):
        """_rebuild_tensor_v2(persistent storage, offset, size, stride, False, OrderedDict())."""
        self.global_('torch._utils', '_rebuild_tensor_v2')
        self.op(b'(')
        self.tuple_(('storage',))
        self.b = self.b[:-1]  # reopen the tuple to add the storage class (a GLOBAL, not a value)
        self.global_('torch', STORAGE.get(dtype, 'FloatStorage'))
        self.value(key).value('cpu').value(numel).op(b't').op(b'Q')
        self.value(offset).tuple_(tuple(size)).tuple_(tuple(stride)).value(False)
        self.global_('collections', 'OrderedDict').op(b')R')
        return self.op(b'tR')

    def done(self):
        return bytes(self.b + b'.')


def state_dict_pickle(entries):
    """entries: [(name, dtype, storage_key, storage_numel, offset, size, stride)] -> data.pkl bytes."""
    p = Pickle()
    p.global_('collections', 'OrderedDict').op(b')R(')
    for name, dtype, key, numel, off, size, stride in entries:
        p.value(name)
        p.tensor(key, dtype, numel, off, size, stride)
    return p.op(b'u').done()


def torch_save(pkl, storages, prefix='archive', extra=(), compress=False):
    """storages: {key: bytes}. Returns zip bytes laid out as torch.save writes them."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as z:
        z.writestr(prefix + '/data.pkl', pkl)
        for k, raw in storages.items():
            z.writestr(prefix + '/data/' + k, raw)
        z.writestr(prefix + '/version', b'3\n')
        for name, raw in extra:
            z.writestr(name, raw)
    return buf.getvalue()


def simple_pt(tensors):
    """tensors: [(name, dtype, shape, values)] contiguous, one storage each."""
    entries, storages = [], {}
    for i, (name, dtype, shape, values) in enumerate(tensors):
        n = 1
        for s in shape:
            n *= s
        stride, acc = [], 1
        for s in reversed(shape):
            stride.insert(0, acc)
            acc *= s
        entries.append((name, dtype, str(i), n, 0, shape, stride))
        storages[str(i)] = pack_values(DTYPE_ST[dtype], values if values is not None else [0] * n)
    return torch_save(state_dict_pickle(entries), storages)


# ---------------------------------------------------------------- zip surgery

def eocd_offset(b):
    return b.rfind(b'PK\x05\x06')


def patch(b, off, fmt, value):
    b = bytearray(b)
    struct.pack_into(fmt, b, off, value)
    return bytes(b)
