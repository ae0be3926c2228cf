"""Zoo families added for issue 11 (vision, large activations, half precision).

Registered in tools/zoo.py's ZOO (one line each); export_fixture.py --zoo --only NAME exports
them like the other families. The half-precision ones (`*_half`) need a torch with CPU half
kernels for their reference outputs (2.x, chroot): their weights/io are committed, made in the
chroot. Host torch 1.13 has no CPU float16 conv / addmm / layer_norm / gelu / softmax, so it
cannot trace them as export_fixture.py does: run this file instead for their
torch1.13-decomposed IR (ops without a float16 kernel run in float32 while tracing),

    /usr/bin/python3 tools/zoo_vision.py --zoo [--only convnext_half,swin_half]

(export_fixture.py's arguments). There the float16 models get model.json only; weights/io as
committed. Models with float32 parameters export as export_fixture.py exports them.
"""

import sys

import torch


def _tv():
    import torchvision

    return torchvision


# ---- ResNet-50 with large activations ---------------------------------------------------------


def raw_pixels(shape):
    """An image that was not normalised: pixel values uniform in [0, 255). Every activation of an
    eval-mode CNN scales with it (BN is affine), so logits reach hundreds."""
    return lambda g: torch.rand(shape, generator=g, dtype=torch.float32) * 255.0


# ---- DeepLabV3 --------------------------------------------------------------------------------


def deeplabv3(num_classes=4):
    """torchvision deeplabv3_mobilenet_v3_large (dilated MobileNetV3 backbone, ASPP with an
    image-pooling branch upsampled by bilinear interpolate, final bilinear upsample to the
    input size), aux_loss off. forward returns {"out": logits}; the dict is flattened into one
    graph output by both exporters."""
    seg = _tv().models.segmentation
    return seg.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                            num_classes=num_classes, aux_loss=False)


# ---- ConvNeXt ---------------------------------------------------------------------------------


def convnext_small_half():
    """torchvision ConvNeXt shrunk to two stages (widths 16/32, one block each: 7x7 depthwise
    conv, channels-last LayerNorm, Linear-GELU-Linear, layer scale), 10 classes, in float16."""
    cn = _tv().models.convnext
    blocks = [cn.CNBlockConfig(16, 32, 1), cn.CNBlockConfig(32, None, 1)]
    return cn.ConvNeXt(blocks, num_classes=10).half()


# ---- Swin -------------------------------------------------------------------------------------


def swin_small(half=False):
    """torchvision SwinTransformer (v1) shrunk: patch 2, embed 16, depths [2, 2], heads [2, 4],
    window 4, 10 classes. At 1x3x32x32 stage 1 is 16x16 tokens = 4x4 windows, so the second
    block of each stage really shifts (roll + the shifted-window mask); stage 2 (8x8 after
    PatchMerging) has 2x2 windows."""
    m = _tv().models.SwinTransformer(patch_size=[2, 2], embed_dim=16, depths=[2, 2],
                                     num_heads=[2, 4], window_size=[4, 4], num_classes=10)
    return m.half() if half else m


def half_randn(shape):
    return lambda g: torch.randn(shape, generator=g, dtype=torch.float32).half()


# ---- 1.13 decomposed export of float16 models ---------------------------------------------------


def _has_half(model):
    return any(t.dtype == torch.float16 for t in list(model.parameters()) + list(model.buffers()))


def _cpu_half_kernels():
    try:
        torch.addmm(torch.zeros(1, 1).half(), torch.ones(1, 1).half(), torch.ones(1, 1).half())
        return True
    except RuntimeError:
        return False


def _half_via_float_mode():
    """A dispatch mode that runs an op the CPU lacks a float16 kernel for (torch 1.13: conv,
    addmm, layer_norm, gelu, softmax...) in float32 and rounds its float32 results to float16.
    export_fixture.export_decomposed traces and records node values by running the ops; under
    this mode it can do so for float16 models. Only the values' dtypes and shapes reach the IR."""
    from torch.utils import _pytree as pytree
    from torch.utils._python_dispatch import TorchDispatchMode

    def is_half(t):
        return isinstance(t, torch.Tensor) and t.dtype == torch.float16

    class HalfViaFloat(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            try:
                return func(*args, **kwargs)
            except (RuntimeError, NotImplementedError) as e:
                if "'Half'" not in str(e):
                    raise
            a, k = pytree.tree_map(lambda t: t.float() if is_half(t) else t, (args, kwargs))
            out = func(*a, **k)
            return pytree.tree_map(lambda t: t.half() if isinstance(t, torch.Tensor)
                                   and t.dtype == torch.float32 else t, out)

    return HalfViaFloat()


def main(argv=None):
    """export_fixture.py's CLI; float16 models export in the decomposed flavor under
    _half_via_float_mode (everything else as export_fixture.py does it)."""
    import export_fixture as ef

    real = ef.export_decomposed

    def export_decomposed(model, inputs):
        if not _has_half(model):
            return real(model, inputs)
        with _half_via_float_mode():
            return real(model, inputs)

    real_io = ef.write_weights_and_io

    def write_weights_and_io(model, inputs, out_dir, ir):
        if _has_half(model) and not _cpu_half_kernels():
            print("%s: torch %s has no CPU float16 kernels for the reference outputs: weights/io "
                  "not written (they are made under torch 2.x, chroot)" % (out_dir, torch.__version__))
            return
        real_io(model, inputs, out_dir, ir)

    ef.export_decomposed = export_decomposed
    ef.write_weights_and_io = write_weights_and_io
    return ef.main(argv)


if __name__ == "__main__":
    import export_fixture as _ef

    try:
        sys.exit(main())
    except _ef.FixtureError as e:
        print("zoo_vision: error: %s" % e, file=sys.stderr)
        sys.exit(1)
