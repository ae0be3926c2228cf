"""Probe model for the tier-3 elementwise ops (issue 11): inverse and hyperbolic
trig, erfinv/erfc/exp2/log10/frac/sgn, atan2/hypot/copysign, the shrink and
threshold activations, lerp/addcmul/addcdiv (and in-place forms), integer shifts
and xor, true_divide, rrelu and the dropouts in eval mode, written as a model
would write them. Registered in zoo.py's ZOO as "elem_probe"."""
import torch
import torch.nn as nn


class ElemProbe(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.end = nn.Parameter(torch.randn(1, 4, 8) * 0.5)
        self.hardshrink = nn.Hardshrink(0.3)
        self.softshrink = nn.Softshrink(0.2)
        self.threshold = nn.Threshold(0.1, -2.0)
        self.rrelu = nn.RReLU(0.1, 0.3)
        self.alpha_drop = nn.FeatureAlphaDropout(0.2)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        h = self.lin(x)
        t = torch.tanh(h) * 0.9  # inside (-1, 1) for asin/acos/atanh/erfinv
        y = torch.asin(t) + torch.acos(t) * 0.5 + torch.atan(h) + torch.atanh(t) + torch.erfinv(t)
        y = y + torch.asinh(h) + torch.acosh(1 + h * h) + torch.sinh(t) + torch.cosh(t) + torch.tan(t)
        y = y + torch.atan2(h, x) + torch.hypot(h, x) + torch.copysign(h, x)
        y = y + torch.log10(1 + h * h) + torch.exp2(t) + torch.frac(h * 3) + torch.sgn(h) + torch.erfc(h)
        y = self.hardshrink(y) + self.softshrink(h) + self.threshold(h)
        y = torch.lerp(y, self.end, 0.3) + torch.lerp(h, x, torch.sigmoid(x))
        y = torch.addcmul(y, h, x, value=0.5) + torch.addcdiv(x, h, 1 + x * x, value=-0.25)
        q = (x * 100).to(torch.int64)
        s = (q << 2) + (q >> 1) + torch.bitwise_left_shift(q, 3) + torch.bitwise_right_shift(q, 2)
        s = s + (q ^ (q >> 3))
        y = y + s.to(torch.float32) * 1e-3 + torch.true_divide(q, 7)
        y = self.rrelu(y) + self.alpha_drop(h) + self.drop(x)
        z = y.clone()
        z.addcmul_(h, x, value=0.1)
        z.lerp_(x, 0.25)
        z.addcdiv_(h, 2 + x * x)
        return z, torch.atan2(t, -h)
