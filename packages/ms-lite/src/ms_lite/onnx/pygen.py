"""A lite graph -> a readable microspore package: ``model.py`` (an ``nn.Cell`` whose
``construct`` calls one operator per line), its weights as a safetensors checkpoint.

The code uses MindSpore's class style (``ops.Conv2D(out_channel=6, ...)`` built in
``__init__``, called in ``construct``), like the code MindConverter writes, so a user can
read, edit and retrain it. Weights are ``Parameter``s named after the ONNX initializers.
"""

from __future__ import annotations

import keyword
import os
import re

import numpy as np

__all__ = ["generate_source", "write_package", "n_outputs"]

_HEADER = '''"""{name}, converted from {source} by ``microspore convert``.

``net = load()`` builds the network with its weights from {ckpt}.
Inputs: {inputs}.
"""

import os

import numpy as np

import microspore as ms
from microspore import Parameter, Tensor, nn, ops

CHECKPOINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "{ckpt}")


class {cls}(nn.Cell):
    """{name}: {n_nodes} operators, {n_params} weight tensors."""

    def __init__(self):
        super().__init__()
'''

_FOOTER = '''

def load(checkpoint=CHECKPOINT):
    """The network with its converted weights, in inference mode."""
    net = {cls}()
    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(checkpoint,
                                                                    format="safetensors"))
    if not_loaded:
        raise ValueError(f"{{checkpoint}}: no weights for {{not_loaded}}")
    net.set_train(False)
    return net
'''


class _Namer:
    """Unique Python identifiers for graph names."""

    def __init__(self, reserved=()):
        self.taken = set(reserved)
        self.map: dict[str, str] = {}

    def __call__(self, name: str, prefix: str = "v") -> str:
        if name in self.map:
            return self.map[name]
        base = re.sub(r"\W+", "_", name).strip("_").lower() or prefix
        if base[0].isdigit() or keyword.iskeyword(base):
            base = f"{prefix}_{base}"
        ident, k = base, 1
        while ident in self.taken:
            k += 1
            ident = f"{base}_{k}"
        self.taken.add(ident)
        self.map[name] = ident
        return ident


def _literal(v) -> str:
    from ms_tensor.dtype import DType

    if isinstance(v, DType):
        return f"ms.{np.dtype(v.np).name if v.np is not np.bool_ else 'bool_'}"
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (tuple, list)):
        items = [_literal(x) for x in v]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    return repr(v)


def _is_default(value, default) -> bool:
    """``stride=(1, 1)`` is the default ``stride=1``: left out of the generated call."""
    try:
        if isinstance(value, (tuple, list)) and not isinstance(default, (tuple, list)):
            return len(value) > 0 and all(v == default for v in value)
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def n_outputs(graph, node) -> int:
    """How many outputs the operator returns (a node may use only the first ones)."""
    from ms_ops.opdef import TENSOR, TensorSpec
    from ms_ops.planning import plan
    from ms_tensor import dtype as mstype
    from ms_tensor import registry

    op = registry.load().primitive(node.op)
    args, k = [], 0
    for a in op.inputs:
        if a.kind == TENSOR:
            name = node.inputs[k] if k < len(node.inputs) else ""
            k += 1
            v = graph.value(name) if name else None
            args.append(None if v is None else
                        TensorSpec(v.shape, mstype.from_numpy(np.dtype(v.dtype))))
        else:
            args.append(node.attrs.get(a.name, a.default))
    static = {a.name for a in op.inputs if a.kind != TENSOR}
    p = plan(op, args, {k: v for k, v in node.attrs.items() if k not in static})
    return len(p.outputs) if p.multi else 1


def generate_source(graph, class_name: str = "Model", source: str = "ONNX",
                    checkpoint: str = "model.safetensors") -> tuple[str, dict[str, np.ndarray]]:
    """``model.py``'s text and the checkpoint's ``{parameter name: array}``."""
    import ms_nn
    from ms_ops.opdef import TENSOR
    from ms_tensor import registry

    reg = registry.load()
    attrs_namer = _Namer(n for n in dir(ms_nn.Cell) if not n.startswith("__"))
    vals = _Namer({"self", "ms", "np", "nn", "ops", "Parameter", "Tensor"})
    args = [vals(v.name, "x") for v in graph.inputs]
    params: dict[str, np.ndarray] = {}
    init, body = [], []
    for cname, array in graph.constants.items():
        ident = attrs_namer(cname, "w")
        params[ident] = array
        grad = "" if array.dtype.kind == "f" else ", requires_grad=False"
        init.append(f"        self.{ident} = Parameter(Tensor(np.zeros({_literal(array.shape)}, "
                    f"np.{array.dtype.name})), name={ident!r}{grad})")
        vals.map[cname] = f"self.{ident}"
    for node in graph.nodes:
        op = reg.primitive(node.op)
        if op is None:
            raise ValueError(f"node {node.name!r}: operator {node.op!r} is not registered")
        ident = attrs_namer(node.name, "op")
        defaults = {a.name: a.default for a in op.attrs}
        kw = ", ".join(f"{k}={_literal(v)}" for k, v in node.attrs.items()
                       if k in defaults and not _is_default(v, defaults[k]))
        init.append(f"        self.{ident} = ops.{node.op}({kw})")
        call, k = [], 0
        for a in op.inputs:
            if a.kind == TENSOR:
                name = node.inputs[k] if k < len(node.inputs) else ""
                k += 1
                call.append(vals(name) if name else "None")
            else:
                call.append(_literal(node.attrs.get(a.name, a.default)))
        outs = [vals(o) for o in node.outputs]
        n = n_outputs(graph, node)
        expr = f"self.{ident}({', '.join(call)})"
        if n == 1:
            body.append(f"        {outs[0]} = {expr}")
        elif len(outs) == n:
            body.append(f"        {', '.join(outs)} = {expr}")
        elif len(outs) == 1:  # the first of several results (BatchNorm's normalized output)
            body.append(f"        {outs[0]} = {expr}[0]")
        else:
            body.append(f"        {', '.join(outs)} = {expr}[:{len(outs)}]")
    rets = ", ".join(vals(v.name) for v in graph.outputs)
    inputs = ", ".join(f"{a} {v.shape} {v.dtype}" for a, v in zip(args, graph.inputs))
    text = _HEADER.format(name=graph.name, source=source, ckpt=checkpoint, inputs=inputs,
                          cls=class_name, n_nodes=len(graph.nodes), n_params=len(params))
    text += "\n".join(init) + "\n\n"
    text += f"    def construct(self, {', '.join(args)}):\n" + "\n".join(body)
    text += f"\n        return {rets}\n" + _FOOTER.format(cls=class_name)
    return text, params


def write_package(graph, out_dir: str, class_name: str = "Model", source: str = "ONNX",
                  report: str | None = None) -> dict[str, str]:
    """Write ``model.py``, ``model.safetensors``, ``__init__.py`` (and ``report.txt``) into
    ``out_dir``; returns their paths by role."""
    from ms_nn.train.checkpoint import save_checkpoint

    os.makedirs(out_dir, exist_ok=True)
    text, params = generate_source(graph, class_name, source)
    paths = {"model": os.path.join(out_dir, "model.py"),
             "checkpoint": os.path.join(out_dir, "model.safetensors"),
             "init": os.path.join(out_dir, "__init__.py")}
    with open(paths["model"], "w") as f:
        f.write(text)
    save_checkpoint([{"name": k, "data": v} for k, v in params.items()], paths["checkpoint"],
                    format="safetensors")
    with open(paths["init"], "w") as f:
        f.write(f'"""{graph.name}, converted from {source}."""\n\n'
                f"from .model import {class_name}, load\n\n"
                f'__all__ = ["{class_name}", "load"]\n')
    if report is not None:
        paths["report"] = os.path.join(out_dir, "report.txt")
        with open(paths["report"], "w") as f:
            f.write(report)
    return paths
