"""Probe models for the tier-3 spatial ops (issue 11), registered in zoo.ZOO.

spatial_probe: the ops as real models write them: F.unfold / F.fold (im2col / col2im), an
STN-like block (theta from a linear layer -> F.affine_grid -> F.grid_sample, bilinear and
bicubic/nearest with each padding mode), nn.Bilinear, torch.cdist and F.pdist.

No packed-sequence RNN here: neither flavor can export one. nn.LSTM/GRU read
batch_sizes[0] as a Python int (data-dependent: torch 1.13 make_fx "trying to get value out
of a tracing tensor", torch 2.14 export fails on the unbacked size even with hx given), so
lstm.data / gru.data are covered by the LibTorch parity tests only.

Runs under torch 1.13 (host, decomposed) and torch 2.x (chroot, training).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SpatialProbe(nn.Module):
    """x: 1x3x9x8."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Linear(3 * 9 * 8, 6)
        with torch.no_grad():  # near-identity affine transform, slightly zoomed out and shifted
            self.loc.weight.mul_(0.01)
            self.loc.bias.copy_(torch.tensor([1.2, 0.1, 0.15, -0.05, 1.1, -0.2]))
        self.bil = nn.Bilinear(6, 5, 4)
        self.proj = nn.Linear(3 * 2 * 2, 6)

    def forward(self, x):
        n = x.shape[0]
        theta = self.loc(x.flatten(1)).view(n, 2, 3)
        grid = F.affine_grid(theta, [n, 3, 7, 6], align_corners=False)
        a = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
        grid2 = F.affine_grid(theta, [n, 3, 5, 5], align_corners=True)
        b = F.grid_sample(x, grid2, mode="bicubic", padding_mode="border", align_corners=True)
        c = F.grid_sample(x, grid2, mode="nearest", padding_mode="reflection", align_corners=True)
        cols = F.unfold(a, kernel_size=(2, 3), dilation=1, padding=(1, 0), stride=(2, 1))  # [n, 18, L]
        folded = F.fold(cols, output_size=(7, 6), kernel_size=(2, 3), padding=(1, 0), stride=(2, 1))
        patches = F.unfold(b, kernel_size=2, stride=2)  # [n, 12, 4]
        feats = self.proj(patches.transpose(1, 2))      # [n, 4, 6]
        d = torch.cdist(feats, feats[:, :3] * 0.5 + 0.1, p=2.0)  # [n, 4, 3]
        d1 = torch.cdist(feats, feats[:, 1:] + 0.3, p=1.0)
        pd = F.pdist(feats[0], p=2.0)
        z = self.bil(feats, torch.cat([d, d1[:, :, :2]], dim=-1))  # [n, 4, 4]
        return folded, c, z, pd


MODELS = [
    ("spatial_probe", (lambda: SpatialProbe(), [(1, 3, 9, 8)])),
]
