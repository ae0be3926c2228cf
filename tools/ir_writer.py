"""pytorch-ir style IR serialization over an FX graph, emulating torch_ir.analyzer / converter.

The real package (tools/pyir_export.py) writes every training-flavor fixture; this module writes
what it cannot: the decomposed flavor under torch 1.13 (make_fx graphs; pytorch-ir needs
torch.export) and graphs with data-dependent sizes (pytorch-ir 0.2.3 refuses them). On every
training fixture pyir_export.py --cross-check byte-compares this writer with the package.
"""

import collections
import operator

import torch


class FixtureError(Exception):
    """A model or graph the fixture exporter cannot handle (export_fixture.py reuses it)."""


_DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
    torch.int64: "int64", torch.uint8: "uint8", torch.bool: "bool",
    torch.complex64: "complex64", torch.complex128: "complex128",
}


def _dtype_str(dtype):
    return _DTYPE_NAMES.get(dtype, str(dtype).replace("torch.", ""))


def _shape(t):
    out = []
    for d in t.shape:
        if not isinstance(d, int):
            try:
                d = int(d)
            except Exception:
                raise FixtureError("dynamic dimension %r in shape %r" % (d, tuple(t.shape)))
        out.append(d)
    return out


def _tensor_metas(value, prefix):
    """TensorMetas of a node value: one tensor -> [prefix]; tuple/list -> prefix_<i>."""
    if isinstance(value, torch.Tensor):
        return [{"name": prefix, "shape": _shape(value), "dtype": _dtype_str(value.dtype)}]
    if isinstance(value, (list, tuple)):
        return [
            {"name": "%s_%d" % (prefix, i), "shape": _shape(v), "dtype": _dtype_str(v.dtype)}
            for i, v in enumerate(value)
            if isinstance(v, torch.Tensor)
        ]
    return []


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v  # json writes inf/nan as Infinity/NaN, like pytorch-ir's IR.save
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, torch.fx.Node):
        return v.name
    # dtype, device, layout, memory_format, ... written as str() (pytorch-ir's workaround)
    return str(v)


def _schema_specs(target):
    specs = []
    for a in target._schema.arguments:
        ts = str(a.type)
        is_list = ("Tensor[]" in ts or "Tensor?[]" in ts or "List[Tensor]" in ts
                   or "List[Optional[Tensor]]" in ts)
        specs.append((a.name, is_list, "Tensor" in ts))
    return specs


def _op_attrs(node):
    attrs = collections.OrderedDict()
    for k, v in node.kwargs.items():
        attrs[k] = _jsonable(v)
    if node.target is operator.getitem:
        if len(node.args) >= 2 and not isinstance(node.args[1], torch.fx.Node):
            attrs["index"] = node.args[1]
        return attrs
    if not hasattr(node.target, "_schema"):
        return attrs  # higher-order ops: pytorch-ir keeps only the kwargs (none)
    specs = _schema_specs(node.target)
    sizes, masks = [], []
    for (name, is_list, _), value in zip(specs, node.args):
        if is_list and isinstance(value, (list, tuple)):
            sizes.append(sum(1 for v in value if v is not None))
            mask = [v is None for v in value]
            if any(mask):
                masks.append(mask)
    if sizes:
        attrs["_tensor_list_sizes"] = sizes
    if masks:
        attrs["_tensor_list_none_masks"] = masks
    for (name, _, is_tensor), value in zip(specs, node.args):
        if isinstance(value, torch.fx.Node):
            continue
        if isinstance(value, (list, tuple)) and any(isinstance(v, torch.fx.Node) for v in value):
            continue
        if value is None and is_tensor:
            continue
        attrs[name] = _jsonable(value)
    return attrs


_HIGHER_ORDER_OPS = ("wrap_with_set_grad_enabled", "wrap_with_autocast")


def _op_type(target):
    if target is operator.getitem:
        return str(target)  # "<built-in function getitem>"
    s = str(target)
    if isinstance(target, torch._ops.OpOverload) and s.startswith("aten."):
        return s
    if s in _HIGHER_ORDER_OPS:
        # str() of the HigherOrderOperator, as pytorch-ir writes it; the body (a get_attr
        # submodule) is not in the IR, only the tensor operands are inputs.
        return s
    raise FixtureError(
        "node target %r is not an ATen op (prim/sym/higher-order ops are not expected in "
        "these fixtures)" % (s,)
    )


def _has_symbolic_shape(v):
    if isinstance(v, torch.Tensor):
        return any(not isinstance(d, int) for d in v.shape)
    if isinstance(v, (list, tuple)):
        return any(_has_symbolic_shape(x) for x in v)
    return False


def example_values(ep, inputs):
    """value_of for a torch.export ExportedProgram: each node's fake value (meta["val"]), except
    where its shape holds unbacked symbols (data-dependent sizes: nonzero, x[mask], unique, ...):
    then the value the graph computes on the example inputs, so the IR records the example's
    sizes as pytorch-ir's static shapes do (the engine re-plans them when data gives others)."""
    graph = ep.graph_module.graph
    if not any(_has_symbolic_shape(n.meta.get("val")) for n in graph.nodes):
        return lambda n: n.meta.get("val")
    from torch.export.graph_signature import InputKind

    user = iter(inputs.values())
    args = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            args.append(next(user))
        elif spec.target in ep.state_dict:
            args.append(ep.state_dict[spec.target])
        elif spec.target in ep.constants:
            args.append(ep.constants[spec.target])
        else:
            raise FixtureError("no value for graph input %s (%s)" % (spec.arg.name, spec.kind))
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            values[n] = r = super().run_node(n)
            return r

    with torch.no_grad():
        Recorder(ep.graph_module).run(*args)
    return lambda n: values.get(n) if _has_symbolic_shape(n.meta.get("val")) else n.meta.get("val")


def _symbolic_scalar(node, value_of):
    """A node computing a SymInt/SymBool from sizes (operator.ge, mul, sym_not, ...): no tensor,
    not an ATen op; its consumers (_assert_scalar, ...) lose it as pytorch-ir drops scalars."""
    if isinstance(node.target, torch._ops.OpOverload) or node.target is operator.getitem:
        return False
    v = node.meta.get("val", value_of(node))
    return isinstance(v, (torch.SymInt, torch.SymBool, torch.SymFloat, int, bool, float))


def build_ir(graph, *, model_name, ph_info, value_of, user_outputs):
    """Walk an FX graph like torch_ir's GraphAnalyzer.

    ph_info: {fx node: (kind, ir_name, original_key)} for placeholders/get_attr, kind in
             input/param/buffer/constant. value_of(node) -> the node's (fake or real) value.
    user_outputs: the output-node arguments that are user outputs.
    """
    node_outputs = {}
    graph_inputs, graph_outputs, weights, mapping, nodes = [], [], [], collections.OrderedDict(), []
    ir_name = {}
    weight_nodes = set()

    def input_metas(node):
        metas = []

        def add(a):
            is_weight = a in weight_nodes
            for idx, m in enumerate(node_outputs.get(a, [])):
                m = dict(m)
                if not is_weight:
                    m["producer_node"] = ir_name[a]
                    m["producer_output_idx"] = idx
                metas.append(m)

        for arg in node.args:
            if isinstance(arg, torch.fx.Node):
                add(arg)
            elif isinstance(arg, (list, tuple)):
                for a in arg:
                    if isinstance(a, torch.fx.Node):
                        add(a)
        for k, v in node.kwargs.items():
            if isinstance(v, torch.fx.Node) or (
                isinstance(v, (list, tuple)) and any(isinstance(x, torch.fx.Node) for x in v)
            ):
                raise FixtureError("node %s has a tensor keyword argument %r" % (node.name, k))
        return metas

    for node in graph.nodes:
        if node.op == "get_attr" and node not in ph_info and \
                not isinstance(value_of(node), torch.Tensor):
            node_outputs[node] = []  # a higher-order op's body submodule: not in the IR
            continue
        if node.op in ("placeholder", "get_attr"):
            if node not in ph_info:
                if node.op == "get_attr":
                    raise FixtureError("unexpected get_attr %s" % node.target)
                raise FixtureError("unclassified placeholder %s" % node.name)
            kind, name, key = ph_info[node]
            ir_name[node] = name
            metas = _tensor_metas(value_of(node), name)
            node_outputs[node] = metas
            if kind == "input":
                graph_inputs.extend(metas)
            else:
                weight_nodes.add(node)
                mapping[name] = key
                for m in metas:
                    weights.append({"name": key, "shape": m["shape"], "dtype": m["dtype"]})
        elif node.op == "call_function" and _symbolic_scalar(node, value_of):
            node_outputs[node] = []
        elif node.op == "call_function":
            ir_name[node] = node.name
            op_type = _op_type(node.target)
            metas = _tensor_metas(value_of(node), node.name)
            node_outputs[node] = metas
            nodes.append(
                collections.OrderedDict(
                    [
                        ("name", node.name),
                        ("op_type", op_type),
                        ("inputs", input_metas(node)),
                        ("outputs", metas),
                        ("attrs", _op_attrs(node)),
                    ]
                )
            )
        elif node.op == "output":
            for arg in user_outputs:
                if isinstance(arg, torch.fx.Node):
                    graph_outputs.extend(node_outputs.get(arg, []))
        else:
            raise FixtureError("unexpected FX node %s (%s)" % (node.name, node.op))

    return collections.OrderedDict(
        [
            ("model_name", model_name),
            ("pytorch_version", torch.__version__),
            ("graph_inputs", graph_inputs),
            ("graph_outputs", graph_outputs),
            ("weights", weights),
            ("weight_name_mapping", mapping),
            ("nodes", nodes),
        ]
    )


def training_ir(ep, model, inputs):
    """build_ir over a torch.export ExportedProgram: what pytorch-ir's extract_ir writes for it
    (cross-checked byte for byte by pyir_export.py --cross-check), and also for graphs with
    data-dependent sizes, which pytorch-ir 0.2.3 refuses (their IR records the example's sizes)."""
    sig = ep.graph_signature
    params = dict(sig.inputs_to_parameters)
    buffers = dict(sig.inputs_to_buffers)
    consts = dict(getattr(sig, "inputs_to_lifted_tensor_constants", {}) or {})
    user_inputs = list(sig.user_inputs)
    graph = ep.graph_module.graph
    ph_info = {}
    for node in graph.nodes:
        if node.op != "placeholder":
            continue
        if node.name in params:
            ph_info[node] = ("param", node.name, params[node.name])
        elif node.name in buffers:
            ph_info[node] = ("buffer", node.name, buffers[node.name])
        elif node.name in consts:
            ph_info[node] = ("constant", node.name, consts[node.name])
        elif node.name in user_inputs:
            ph_info[node] = ("input", node.name, None)
        else:
            raise FixtureError("placeholder %s is neither a weight nor a user input" % node.name)
    out_node = [n for n in graph.nodes if n.op == "output"][0]
    outs = out_node.args[0] if isinstance(out_node.args[0], (list, tuple)) else [out_node.args[0]]
    user_outs = set(sig.user_outputs)
    user_outputs = [a for a in outs if isinstance(a, torch.fx.Node) and a.name in user_outs]
    ir = build_ir(graph, model_name=type(model).__name__, ph_info=ph_info,
                  value_of=example_values(ep, inputs), user_outputs=user_outputs)
    constants = collections.OrderedDict()
    for k, v in (getattr(ep, "constants", None) or {}).items():
        if isinstance(v, torch.Tensor):
            constants[k] = v
    if constants:
        ir["constants"] = _constants_json(constants)
    return ir


def _placeholder_name(prefix, key):
    return prefix + key.replace(".", "_")


def _constants_json(constants):
    return collections.OrderedDict(
        (k, {"data": v.tolist(), "dtype": str(v.dtype).replace("torch.", "")})
        for k, v in constants.items()
    )
