"""Shape-op probe for the model zoo (tools/zoo.py): the tier-3 view/shape ops as
models write them, so both export flavors and both WASM builds run them.

A weight-normed conv (nn.utils.weight_norm: _weight_norm), channel_shuffle,
diagonal/diag/eye, take_along_dim (with and without dim), tensor_split,
meshgrid (xy and ij), broadcast_to, column_stack, atleast_2d and a view(dtype)
round trip; several outputs."""
import torch
from torch import nn


class ShapeProbe(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.utils.weight_norm(nn.Conv2d(4, 4, 3, padding=1), dim=0)
        self.proj = nn.utils.weight_norm(nn.Linear(6, 6), dim=None)

    def forward(self, x):  # x [2, 4, 6, 6]
        y = torch.channel_shuffle(self.conv(x), 2)
        f = y.flatten(2)                                        # [2, 4, 36]
        m = f[0, :, :4]                                         # [4, 4]
        diag = torch.diagonal(f[:, :, :4], 1, 1, 2)             # [2, 3] (a view)
        mm = m @ torch.eye(4) + torch.diag(torch.diagonal(m, -1), 1) + torch.diag(m.diagonal()).t()
        idx = f.abs().argmax(-1, keepdim=True)                  # [2, 4, 1]
        peak = torch.take_along_dim(f, idx, dim=-1)             # [2, 4, 1]
        flat = torch.take_along_dim(m.contiguous(), torch.tensor([0, 5, 15]))  # dim None: [3]
        a, b, c = torch.tensor_split(f, 3, dim=-1)              # 3 x [2, 4, 12]
        gx, gy = torch.meshgrid(x[0, 0, 0], x[0, 0, :4, 1], indexing="xy")   # [4, 6]
        hx, hy = torch.meshgrid(x[0, 1, 0, :3], x[0, 1, 1, :2], indexing="ij")  # [3, 2]
        grid = gx * gy + self.proj(gx)                          # [4, 6]
        wide = torch.broadcast_to(diag.unsqueeze(1), (2, 4, 3)) + peak
        cols = torch.column_stack([flat, hx[:, 0], hy])         # [3, 4]
        one = torch.atleast_2d(f[0, 0, 0])                      # [1, 1]
        bits = x.view(torch.int32)                              # float bits as int32
        sign = (bits < 0).to(torch.float32) + x.view(torch.int32).view(torch.float32)
        mixed = a * b - c + one
        return mm, wide, cols, grid, mixed.sum(-1), sign
