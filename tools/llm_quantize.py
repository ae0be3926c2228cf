#!/usr/bin/env python3
"""torchao quantization of the LLM before tools/export_llm.py exports its prefill/decode pair
(`--quantize 8da4w|int4_weight_only --group-size G`), and the quantized weights file it writes.
Runs in the torch 2.x chroot with torchao 0.18 (tools/requirements-export.txt)."""

import collections

import torch
import torch.nn as nn

import export_fixture

QUANT_FLOWS = ("8da4w", "int4_weight_only")


def torchao_config(flow, group_size):
    """(config, description) of torchao's int4 flows, shared with tools/export_quantized.py."""
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig, IntxWeightOnlyConfig
    from torchao.quantization.granularity import PerGroup

    if flow == "8da4w":
        return (Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
                                                      weight_granularity=PerGroup(group_size)),
                "quantize_(Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, "
                "weight_granularity=PerGroup(%d))) + unwrap_tensor_subclass" % group_size)
    if flow == "int4_weight_only":
        return (IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(group_size)),
                "quantize_(IntxWeightOnlyConfig(weight_dtype=torch.int4, "
                "granularity=PerGroup(%d))) + unwrap_tensor_subclass" % group_size)
    raise SystemExit("unknown torchao flow %r (%s)" % (flow, ", ".join(QUANT_FLOWS)))


def read_weights(ir):
    """Placeholder -> state_dict key of the weights some node reads, constants excluded."""
    consts = set(ir.get("constants", {}))
    read = {i["name"] for n in ir["nodes"] for i in n["inputs"]}
    return collections.OrderedDict(
        (ph, key) for ph, key in ir["weight_name_mapping"].items()
        if ph in read and key not in consts)


def quantize_lm(lm, flow, group_size):
    """torchao's quantize_ on every nn.Linear of `lm` in place, then unwrap_tensor_subclass:
    plain int8-stored int4 weights, scales and zero points read by torchao.dequantize_affine.
    Returns a description."""
    from torchao.quantization import quantize_
    from torchao.utils import unwrap_tensor_subclass

    config, desc = torchao_config(flow, group_size)
    for name, m in lm.named_modules():
        if isinstance(m, nn.Linear) and m.in_features % group_size:
            raise SystemExit("export_llm: %s has in_features %d, not a multiple of --group-size %d"
                             % (name, m.in_features, group_size))
    quantize_(lm, config)
    unwrap_tensor_subclass(lm)
    return desc


def write_quantized_weights(lm, irs, path):
    """The state_dict tensors some node of `irs` reads (by weight_name_mapping), under their
    state_dict keys, dtypes kept (int8-stored int4 weights, int8 zero points)."""
    state = lm.state_dict()
    out = collections.OrderedDict()
    for ir in irs:
        for ph, key in read_weights(ir).items():
            if key in out:
                continue
            if key not in state:
                raise SystemExit("export_llm: weight %s (%s) is not in the state_dict" % (key, ph))
            out[key] = state[key].detach().contiguous()
    export_fixture.write_safetensors(path, collections.OrderedDict(sorted(out.items())))
    return sum(t.numel() * t.element_size() for t in out.values())
