"""The small fixture models (and the zoo's, via zoo.ZOO) export_fixture.py exports:
MODELS maps a name to (constructor, input shapes or input makers); build_model(name, seed)
builds one in eval mode with deterministic weights and inputs.
"""

import collections
import inspect
import math

import torch
import torch.nn as nn

import zoo
from ir_writer import FixtureError

class SmallCNN(nn.Module):
    """conv-bn-relu-maxpool-conv-bn-relu-adaptiveavgpool-flatten-linear, 1x3x32x32 -> 1x10."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.pool(self.relu(self.bn1(self.conv1(x))))
        x = self.relu(self.bn2(self.conv2(x)))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


# The four seed models of shared/seeds-ir, re-created (same state_dict keys, same constants).


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class MaskedLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.mask = torch.tensor([1.0, 0.0, 1.0, 0.0])  # plain attribute -> lifted constant

    def forward(self, x):
        return self.linear(x) * self.mask


class GatherWithIndex(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)
        self.indices = torch.tensor([0, 2, 4, 6])  # plain attribute -> lifted constant

    def forward(self, x):
        return self.linear(x)[:, self.indices]


class BufferVsConstant(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.register_buffer("scale", torch.ones(4))  # buffer: in the state_dict
        self.offset = torch.tensor([0.1, 0.2, 0.3, 0.4])  # constant: not in the state_dict

    def forward(self, x):
        return self.linear(x) * self.scale + self.offset


class KVCache(nn.Module):
    """A static KV cache: forward writes proj(x) into the registered buffer k_cache at position
    `pos` (index_copy_, in place) and returns a value computed from the whole updated cache, so
    the buffer's state carries over from one call to the next."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("k_cache", torch.zeros(1, 2, 8, 4))

    def forward(self, x, pos):
        self.k_cache.index_copy_(2, pos, self.proj(x))
        return (self.k_cache * 1.0).sum(-1)

    def fixture_post_init(self):
        self.k_cache.zero_()  # an empty cache, not the seeded random values

    def fixture_extra_steps(self):
        """Inputs of the calls after the first (recorded as io_step<k>.safetensors)."""
        g = _generator(0, "input.x.step2")
        return [collections.OrderedDict(
            [("x", torch.randn(1, 2, 1, 4, generator=g)), ("pos", torch.tensor([5]))])]


class MaskedOps(nn.Module):
    """Causal-mask attention scores: masks built in forward (ones().tril(), arange
    comparison), masked_fill with -inf, softmax, where, and a boolean-mask write."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        s = x.shape[1]
        scores = self.proj(x) @ x.transpose(-2, -1)
        mask = torch.ones(s, s).tril()
        attn = torch.softmax(scores.masked_fill(mask == 0, float("-inf")), dim=-1)
        i = torch.arange(s)
        future = i[None, :] > i[:, None]
        alt = torch.where(future, torch.zeros_like(attn), attn * 2.0)
        y = attn @ x + alt.sum(-1, keepdim=True)
        y[y < 0] = 0.0
        return y


_tv = zoo._tv
_generator = zoo.seeded_generator

MODELS = collections.OrderedDict(
    [
        ("small_cnn", (lambda: SmallCNN(), [(1, 3, 32, 32)])),
        ("resnet18", (lambda: _tv().models.resnet18(), [(1, 3, 64, 64)])),
        ("mobilenet_v2", (lambda: _tv().models.mobilenet_v2(), [(1, 3, 64, 64)])),
        (
            "vit_tiny",
            (
                lambda: _tv().models.VisionTransformer(
                    image_size=32, patch_size=8, num_layers=2, num_heads=2,
                    hidden_dim=32, mlp_dim=64, num_classes=10,
                ),
                [(1, 3, 32, 32)],
            ),
        ),
        ("SimpleMLP", (lambda: SimpleMLP(), [(1, 4)])),
        ("MaskedLinear", (lambda: MaskedLinear(), [(1, 4)])),
        ("GatherWithIndex", (lambda: GatherWithIndex(), [(1, 8)])),
        ("BufferVsConstant", (lambda: BufferVsConstant(), [(1, 4)])),
        ("kv_cache", (lambda: KVCache(), [(1, 2, 1, 4), lambda g: torch.tensor([3])])),
        ("masked_ops", (lambda: MaskedOps(), [(1, 5, 4)])),
    ]
)
MODELS.update(zoo.ZOO)


def init_model(model, seed):
    """Deterministically re-initialise every float parameter/buffer (non-trivial values)."""
    with torch.no_grad():
        tensors = list(model.named_parameters()) + list(model.named_buffers())
        for key, t in tensors:
            if not t.is_floating_point():
                continue  # num_batches_tracked etc. keep their (int64) value
            g = _generator(seed, key)
            leaf = key.rsplit(".", 1)[-1]
            shape = tuple(t.shape)
            if leaf == "running_var":
                vals = torch.rand(shape, generator=g, dtype=torch.float32) + 0.5
            elif leaf == "running_mean":
                vals = torch.randn(shape, generator=g, dtype=torch.float32) * 0.1
            elif t.dim() >= 2:
                fan_in = max(1, t[0].numel())
                vals = torch.randn(shape, generator=g, dtype=torch.float32) / math.sqrt(fan_in)
            elif leaf in ("weight", "scale"):
                vals = 1.0 + 0.1 * torch.randn(shape, generator=g, dtype=torch.float32)
            else:
                vals = 0.1 * torch.randn(shape, generator=g, dtype=torch.float32)
            t.copy_(vals.to(t.dtype))


def build_model(name, seed):
    if name not in MODELS:
        raise FixtureError("unknown model %r (known: %s)" % (name, ", ".join(MODELS)))
    ctor, shapes = MODELS[name]
    torch.manual_seed(seed)
    model = ctor()
    init_model(model, seed)
    if hasattr(model, "fixture_post_init"):
        with torch.no_grad():
            model.fixture_post_init()
    model.eval()
    params = inspect.signature(model.forward).parameters
    arg_names = [p for p in params][: len(shapes)]
    inputs = collections.OrderedDict()
    for arg, shape in zip(arg_names, shapes):
        g = _generator(seed, "input." + arg)
        # A shape gives a randn float input; a callable(generator) gives any other input.
        inputs[arg] = shape(g) if callable(shape) else torch.randn(shape, generator=g,
                                                                    dtype=torch.float32)
    return model, inputs
