"""Cases for the integer shifts at shift counts where torch 1.13 (linked
LibTorch) and torch >= 2.1 differ: counts outside [0, bits) were x86 undefined
behaviour in 1.13 and are defined since 2.1 (<< gives 0, >> the sign fill).
Run in the torch 2.14 chroot:
  flock /tmp/tir-chroot.lock bash tools/torch2-chroot.sh run -- python3 /repo/tools/gen_ops2_elem.py
Writes tests/fixtures/ops2/elem/shifts.json, replayed by
tests/cpp/unit/ops_elementwise_math_test.cpp (EwMath.ShiftCasesFromTorch2)."""
import json
import os

import torch

OPS = ["__lshift__.Scalar", "__rshift__.Scalar", "bitwise_left_shift.Tensor_Scalar",
       "bitwise_right_shift.Tensor_Scalar"]
DTYPES = {"int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32,
          "int64": torch.int64}
VALUES = {"int8": [-128, -5, -1, 0, 1, 5, 100, 127], "uint8": [0, 1, 5, 100, 128, 251, 255],
          "int16": [-32768, -5, -1, 0, 1, 5, 300, 32767],
          "int32": [-2**31, -5, -1, 0, 1, 5, 100000, 2**31 - 1],
          "int64": [-2**63, -5, -1, 0, 1, 5, 10**12, 2**63 - 1]}


def main():
    cases = []
    for name, dt in DTYPES.items():
        bits = torch.iinfo(dt).bits
        counts = sorted({-100, -1, bits - 1, bits, bits + 1, 31, 32, 33, 63, 64, 65, 100})
        x = torch.tensor(VALUES[name], dtype=dt)
        for op in OPS:
            fn = getattr(torch.ops.aten, op.split(".")[0]).__getattr__(op.split(".")[1])
            for c in counts:
                if dt == torch.uint8 and c < 0:
                    continue  # the Scalar does not fit uint8
                y = fn(x, c)
                cases.append({"op": "aten." + op, "dtype": name, "values": VALUES[name], "other": c,
                              "expected": [int(v) for v in y.tolist()]})
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "ops2", "elem", "shifts.json")
    with open(out, "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print(len(cases), "cases ->", out)


if __name__ == "__main__":
    main()
