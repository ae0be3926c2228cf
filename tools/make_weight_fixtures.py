#!/usr/bin/python3
"""Writes the weight-file fixtures in tests/fixtures/weights/ (run with Debian's
/usr/bin/python3 and torch 1.13):

  all_dtypes.safetensors   every safetensors dtype, written by hand (no safetensors package),
                           plus a misaligned f32 and __metadata__
  state_dict.pt            torch.save of a dict: views (transposed, offset, shared storage),
                           every storage dtype, 0-d and empty tensors, a key named '_metadata'
  linear.pt                nn.Linear state_dict(keep_vars=True): Parameters, OrderedDict _metadata
  module.pt                nn.Sequential state_dict saved to a path (archive prefix 'module')
  checkpoint.pt            {'epoch', 'lr', 'optimizer', 'state_dict': ...} training checkpoint
  zip64.pt                 linear.pt re-packed with ZIP64 records and extra fields
  torch2_layout.pt         linear.pt re-packed like torch 2.x: 64-byte aligned data,
                           byteorder 'little', .data/serialization_id
  byteorder_big.pt         like torch2_layout.pt but byteorder 'big' (must be refused)
  compressed.pt            linear.pt re-zipped with deflate (must be refused)
  malicious.pt             data.pkl calls os.system via GLOBAL/REDUCE (must be refused;
                           never loaded here)
  legacy.pt                the pre-1.6 non-zip torch.save format (must be refused)
  torchscript.pt           torch.jit.save of a Linear (must be refused)
  truncated.pt / truncated.safetensors / truncated_header.safetensors
  expected.json            per file and key: dtype, shape, strides, offset, storage, values

Re-running reproduces every file byte for byte except legacy.pt and torchscript.pt
(torch embeds object ids / random names in those).
"""
import collections
import io
import json
import os
import pickletools
import struct
import sys
import zipfile
import zlib

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "weights")

IR_DTYPE = {
    torch.float64: "float64", torch.float32: "float32", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32", torch.int16: "int16",
    torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
}
ST_DTYPE = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}


def values(t):
    t = t.detach()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.double()
    if t.dtype == torch.bool:
        t = t.to(torch.int64)
    return t.flatten().tolist()


def describe(t, storage=None):
    t = t.detach()
    return {
        "dtype": IR_DTYPE[t.dtype],
        "shape": list(t.shape),
        "strides": list(t.stride()),
        "offset": t.storage_offset(),
        "storage": storage,
        "values": values(t),
    }


def raw_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    return data


def torch_save_bytes(obj):
    b = io.BytesIO()
    torch.save(obj, b)
    return b.getvalue()


def storage_ids(sd):
    """Names storages by the first key that uses them, to check sharing."""
    first = {}
    out = {}
    for k, t in sd.items():
        ptr = t.detach().storage().data_ptr()
        first.setdefault(ptr, k)
        out[k] = first[ptr]
    return out


def expect_state_dict(sd):
    ids = storage_ids(sd)
    return {k: describe(t, ids[k]) for k, t in sd.items()}


# ---------------------------------------------------------------- safetensors
def make_safetensors(expected):
    tensors = [
        ("f64", torch.tensor([[1.5, -2.25], [1e300, -0.0]], dtype=torch.float64)),
        ("f32", torch.tensor([[0.1, -1.0, 3.5], [1e-30, 2.0 ** 100, -7.25]], dtype=torch.float32)),
        ("f16", torch.tensor([1.0, -0.5, 65504.0, 0.1], dtype=torch.float16)),
        ("bf16", torch.tensor([1.0, -3.140625, 1e20], dtype=torch.bfloat16)),
        ("i64", torch.tensor([-(2 ** 62), 0, 2 ** 62 + 1], dtype=torch.int64)),
        ("i32", torch.tensor([[-(2 ** 31), 1], [2 ** 31 - 1, -5]], dtype=torch.int32)),
        ("i16", torch.tensor([-32768, 12345, 32767], dtype=torch.int16)),
        ("i8", torch.tensor([-128, -1, 0, 127], dtype=torch.int8)),
        ("u8", torch.tensor([0, 128, 255], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True, True])),
        ("scalar", torch.tensor(3.5, dtype=torch.float32)),
        ("empty", torch.zeros(0, 3, dtype=torch.float32)),
    ]
    # Data laid out by descending alignment (as the safetensors library does), in
    # an order unlike the header's; then a u8 pad puts one f32 at an odd offset.
    header = {"__metadata__": {"format": "pt", "source": "make_weight_fixtures.py"}}
    layout = sorted(tensors, key=lambda nt: -nt[1].element_size())
    size = sum(len(raw_bytes(t)) for _, t in tensors)
    tensors += [("u8_pad", torch.tensor([9] * ((1 - size) % 4 or 4), dtype=torch.uint8)),
                ("misaligned_f32", torch.tensor([1.25, -2.5], dtype=torch.float32))]
    layout += tensors[-2:]
    offsets = {}
    data = b""
    for name, t in layout:
        b = raw_bytes(t)
        offsets[name] = [len(data), len(data) + len(b)]
        data += b
    for name, t in tensors:
        header[name] = {"dtype": ST_DTYPE[t.dtype], "shape": list(t.shape), "data_offsets": offsets[name]}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    blob = struct.pack("<Q", len(h)) + h + data
    write("all_dtypes.safetensors", blob)
    expected["all_dtypes.safetensors"] = {n: describe(t, n) for n, t in tensors}
    write("truncated.safetensors", blob[:-10])
    write("truncated_header.safetensors", blob[:40])


# ---------------------------------------------------------------- torch.save
def make_state_dict():
    torch.manual_seed(0)
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    big = torch.arange(20, dtype=torch.float32) * 0.5
    shared = torch.randn(4, 3)
    return {
        "f32": torch.tensor([[0.1, -1.0, 3.5], [1e-30, 2.0 ** 100, -7.25]]),
        "transposed": base.t(),                       # strides (1, 4)
        "sliced": big[5:11].view(2, 3),               # storage offset 5 in a 20-element storage
        "shared_a": shared,
        "shared_b": shared[1],                        # same storage, offset 3
        "expanded": torch.tensor([1.0, 2.0]).expand(3, 2),  # stride 0
        "f64": torch.tensor([1.5, -1e300], dtype=torch.float64),
        "f16": torch.tensor([0.1, -2.5, 65504.0], dtype=torch.float16),
        "bf16": torch.tensor([0.1, -3.0, 1e20], dtype=torch.bfloat16),
        "i64": torch.tensor([-(2 ** 40), 0, 7, 2 ** 62], dtype=torch.int64),
        "i32": torch.tensor([-(2 ** 31), 2 ** 31 - 1], dtype=torch.int32),
        "i16": torch.tensor([-300, 300], dtype=torch.int16),
        "i8": torch.tensor([-128, 127], dtype=torch.int8),
        "u8": torch.tensor([0, 255], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 4),
        "_metadata": torch.tensor([1.0, 2.0]),      # a key that merely looks like the attribute
    }


class Zip:
    """A STORED zip writer with optional ZIP64 records and data alignment."""

    def __init__(self, zip64=False, align=0):
        self.zip64, self.align = zip64, align
        self.out = bytearray()
        self.central = bytearray()
        self.count = 0

    def add(self, name, data):
        name = name.encode()
        crc = zlib.crc32(data) & 0xFFFFFFFF
        offset = len(self.out)
        extra = b""
        size32 = len(data)
        if self.zip64:
            extra = struct.pack("<HHQQ", 1, 16, len(data), len(data))
            size32 = 0xFFFFFFFF
        if self.align:
            start = offset + 30 + len(name) + len(extra) + 4
            pad = (-start) % self.align
            extra += struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # 'FB' padding, as torch 2.x
        self.out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0x21, crc, size32, size32,
                                len(name), len(extra)) + name + extra + data
        cextra = b""
        off32 = offset
        if self.zip64:
            cextra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), offset)
            off32 = 0xFFFFFFFF
        self.central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0x21, crc,
                                    size32, size32, len(name), len(cextra), 0, 0, 0, 0, off32)
        self.central += name + cextra
        self.count += 1

    def finish(self):
        cd_off = len(self.out)
        self.out += self.central
        if self.zip64:
            z = len(self.out)
            self.out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, self.count,
                                    self.count, len(self.central), cd_off)
            self.out += struct.pack("<IIQI", 0x07064B50, 0, z, 1)
            self.out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                                    0xFFFFFFFF, 0)
        else:
            self.out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, self.count, self.count,
                                    len(self.central), cd_off, 0)
        return bytes(self.out)


def repack(src, zip64=False, align=0, extra_entries=()):
    zin = zipfile.ZipFile(io.BytesIO(src))
    z = Zip(zip64=zip64, align=align)
    for info in zin.infolist():
        z.add(info.filename, zin.read(info.filename))
    for name, data in extra_entries:
        z.add(name, data)
    return z.finish()


def check_loads(name, expected_sd):
    got = torch.load(os.path.join(OUT, name))
    if "state_dict" in got and not isinstance(got["state_dict"], torch.Tensor):
        got = got["state_dict"]
    assert list(got) == list(expected_sd), name
    for k in got:
        assert torch.equal(got[k], expected_sd[k]), (name, k)


def malicious_pickle():
    """{'w': os.system('echo pwned > /tmp/tir_weights_pwned')}, assembled by hand."""
    cmd = b"echo pwned > /tmp/tir_weights_pwned"
    return (b"\x80\x02}q\x00X\x01\x00\x00\x00wq\x01cos\nsystem\nq\x02"
            + b"X" + struct.pack("<I", len(cmd)) + cmd + b"\x85R\x73.")


def main():
    os.makedirs(OUT, exist_ok=True)
    expected = {}
    make_safetensors(expected)

    sd = make_state_dict()
    write("state_dict.pt", torch_save_bytes(sd))
    expected["state_dict.pt"] = expect_state_dict(sd)
    check_loads("state_dict.pt", sd)

    torch.manual_seed(1)
    lin = torch.nn.Linear(3, 2)
    lin_sd = lin.state_dict(keep_vars=True)           # Parameters -> _rebuild_parameter
    assert isinstance(lin_sd["weight"], torch.nn.Parameter) and hasattr(lin_sd, "_metadata")
    linear = write("linear.pt", torch_save_bytes(lin_sd))
    expected["linear.pt"] = expect_state_dict(lin_sd)

    seq = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    seq_sd = seq.state_dict()
    torch.save(seq_sd, os.path.join(OUT, "module.pt"))   # archive prefix 'module'
    expected["module.pt"] = expect_state_dict(seq_sd)
    check_loads("module.pt", seq_sd)

    ckpt = {"epoch": 3, "lr": 0.1, "name": "run", "flags": [True, None, -2 ** 40],
            "state_dict": lin.state_dict(),
            "optimizer": {"state": {}, "param_groups": [{"lr": 0.1, "params": [0, 1]}]}}
    write("checkpoint.pt", torch_save_bytes(ckpt))
    expected["checkpoint.pt"] = expect_state_dict(lin.state_dict())

    write("zip64.pt", repack(linear, zip64=True))
    expected["zip64.pt"] = expected["linear.pt"]
    write("torch2_layout.pt", repack(linear, align=64, extra_entries=[
        ("archive/byteorder", b"little"), ("archive/.data/serialization_id", b"1234567890")]))
    expected["torch2_layout.pt"] = expected["linear.pt"]
    for name in ("zip64.pt", "torch2_layout.pt", "linear.pt"):
        check_loads(name, lin_sd)
    write("byteorder_big.pt", repack(linear, extra_entries=[("archive/byteorder", b"big")]))

    zin = zipfile.ZipFile(io.BytesIO(linear))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            fixed_time = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            zout.writestr(fixed_time, zin.read(info.filename), compress_type=zipfile.ZIP_DEFLATED)
    write("compressed.pt", buf.getvalue())

    evil = malicious_pickle()
    ops = [op.name for op, _, _ in pickletools.genops(evil)]  # parses only; never executed
    assert "GLOBAL" in ops and "REDUCE" in ops
    z = Zip()
    z.add("archive/data.pkl", evil)
    z.add("archive/version", b"3\n")
    write("malicious.pt", z.finish())

    b = io.BytesIO()
    torch.save({"a": torch.ones(2)}, b, _use_new_zipfile_serialization=False)
    write("legacy.pt", b.getvalue())

    b = io.BytesIO()
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 1)), b)
    write("torchscript.pt", b.getvalue())

    write("truncated.pt", linear[: len(linear) // 2])

    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=False)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files, {total} bytes, into {os.path.normpath(OUT)}")


if __name__ == "__main__":
    sys.exit(main())
