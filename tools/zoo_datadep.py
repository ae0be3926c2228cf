"""Zoo probe for the ops whose output sizes depend on the data, as models write them: a bool-mask
index (x[m]) feeding a linear layer and a reduction, nonzero -> index_select, unique,
masked_select, bucketize / searchsorted and scatter_reduce (static sizes, data-dependent values).

The IR records the sizes of the export's example inputs; the engine re-plans the dependent nodes
when other data gives other sizes (runtime/dynamic.cpp). npm/test/datadep.test.mjs feeds masks
with other true counts through both WASM builds.
"""

import torch
import torch.nn as nn


class DatadepProbe(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.register_buffer("bounds", torch.tensor([-1.0, -0.25, 0.0, 0.5, 1.0]))

    def forward(self, x, m):
        sel = x[m]                                    # index.Tensor, bool mask: [u, 4]
        h = self.lin(sel).relu()                      # [u, 3]
        pooled = h.sum(0)                             # [3]
        rows = torch.nonzero(m)[:, 0]                 # [u]
        picked = x.index_select(0, rows).sum(1)       # [u]
        vals = torch.unique(torch.round(x * 2))       # _unique2: [k]
        pos = torch.masked_select(x, x > 0.5)         # [v]
        b = torch.bucketize(x, self.bounds)           # [6, 4] int64
        s = torch.searchsorted(self.bounds, x, right=True)
        red = torch.zeros(6, 4).scatter_reduce(0, b.clamp(max=5), x, "mean", include_self=False)
        return sel, pooled, picked, vals, pos.sum(0), b, s, red


def _mask(g):
    return torch.tensor([True, False, True, True, False, False])


PROBES = [
    ("datadep_probe", (lambda: DatadepProbe(), [(6, 4), _mask])),
]


# Other masks for the committed fixture, with torch's outputs: io_mask<k>.safetensors next to
# io.safetensors (tests/cpp/unit/ops_datadep_test.cpp replays them natively).
OTHER_MASKS = [[1, 1, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]]


def write_other_mask_io(flavor_dir):
    """The fixture's model and x (export_fixture.build_model, seed 0) with each OTHER_MASKS mask."""
    import os

    import export_fixture as ef

    model, inputs = ef.build_model("datadep_probe", 0)
    for k, mask in enumerate(OTHER_MASKS, start=2):
        m = torch.tensor(mask, dtype=torch.bool)
        with torch.no_grad():
            outs = model(inputs["x"], m)
        tensors = {"input.x": inputs["x"], "input.m": m}
        tensors.update(("output.%d" % i, o.contiguous()) for i, o in enumerate(outs))
        ef.write_safetensors(os.path.join(flavor_dir, "io_mask%d.safetensors" % k), tensors)


if __name__ == "__main__":
    import sys

    for d in sys.argv[1:]:
        write_other_mask_io(d)
