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
