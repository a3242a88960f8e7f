"""The state of one ONNX import: names, constants, shapes, and the lite graph being built.

Translators (one per ONNX operator type, ``ms_lite.onnx.import_*``) read their node's
inputs through this context and ``emit`` registry operators. Every emitted node is
planned by the registry at once (``ms_ops.planning.plan``), so shapes and dtypes come
from the same inference eager mode uses, and a translation the operator rejects fails
at import, naming the ONNX node.
"""

from __future__ import annotations

import numpy as np

from ms_lite.ir import Graph, Node, Value

__all__ = ["Unsupported", "ImportContext", "attr"]


class Unsupported(Exception):  # noqa: N818 (a reason, caught by the importer)
    """A node this importer cannot translate; the message says why."""


class ImportContext:
    """Maps ONNX tensor names to lite graph names while nodes are translated.

    Attributes:
        graph: the lite ``Graph`` under construction.
        opset: the model's default-domain opset version (operators changed across opsets).
        consts: ONNX name -> numpy value of every tensor known at import time (initializers,
            Constant nodes and whatever was folded); put into the graph only when used.
        node: the ONNX node being translated (for names in errors).
        model: the ``onnx.ModelProto`` (its opsets: nodes are folded under them).
    """

    def __init__(self, name: str, opset: int):
        self.graph = Graph([], [], [], {}, name)
        self.opset = opset
        self.consts: dict[str, np.ndarray] = {}
        self.names: dict[str, str] = {}  # ONNX name -> graph name, for computed tensors
        self.node = None
        self.model = None
        self._used: set[str] = set()
        self._node_names: set[str] = set()
        self._count = 0

    # -- reading a node's inputs ------------------------------------------------------
    def has(self, i: int) -> bool:
        """Whether input ``i`` of the current node is given (ONNX leaves optional ones '')."""
        return i < len(self.node.input) and self.node.input[i] != ""

    def const(self, i: int) -> np.ndarray | None:
        """Input ``i``'s value if it is known at import time, else None."""
        return self.consts.get(self.node.input[i]) if self.has(i) else None

    def need_const(self, i: int, what: str) -> np.ndarray:
        """Input ``i``'s value; ``Unsupported`` if it is only known at run time."""
        c = self.const(i)
        if c is None:
            raise Unsupported(f"its {what} (input {i}, {self.node.input[i]!r}) is computed at "
                              "run time; only a constant one can be translated")
        return c

    def input(self, i: int) -> str:
        """The graph name of input ``i``, a constant put into the graph on first use."""
        return self.tensor(self.node.input[i])

    def tensor(self, onnx_name: str) -> str:
        if onnx_name in self.names:
            return self.names[onnx_name]
        if onnx_name in self.consts:
            name = self.names[onnx_name] = self.add_const(self.consts[onnx_name], onnx_name)
            return name
        raise Unsupported(f"it reads {onnx_name!r}, which no translated node computes")

    def spec(self, name: str) -> Value:
        """Shape and dtype of a graph name (not an ONNX one)."""
        return self.graph.value(name)

    def in_spec(self, i: int) -> Value:
        """Shape and dtype of input ``i`` (constants included, nothing added to the graph)."""
        name = self.node.input[i]
        if name in self.names:
            return self.spec(self.names[name])
        c = self.consts[name]
        return Value(name, c.shape, c.dtype.name)

    # -- building the graph -----------------------------------------------------------
    def add_const(self, array, base: str) -> str:
        """Put a constant into the graph under a fresh name derived from ``base``."""
        array = np.ascontiguousarray(array)
        name = base if base not in self._used else self._fresh(base)
        self._used.add(name)
        self.graph.constants[name] = array
        return name

    def _fresh(self, base: str) -> str:
        while True:
            self._count += 1
            name = f"{base}_{self._count}"
            if name not in self._used:
                return name

    def emit(self, op: str, inputs: list[str], attrs: dict | None = None,
             out: str | list[str] | None = None, n_out: int = 1) -> list[str]:
        """Add one registry operator; returns its output names.

        ``out`` names the outputs after ONNX outputs of the current node (bound so that
        later nodes find them); otherwise fresh names are made from the node's name.
        """
        from ms_ops.opdef import TENSOR
        from ms_ops.planning import plan
        from ms_tensor import dtype as mstype
        from ms_tensor import registry

        attrs = dict(attrs or {})
        opdef = registry.load().primitive(op)
        if opdef is None:
            raise Unsupported(f"the registry has no {op!r} operator (is its plugin installed?)")
        args, k = [], 0
        for a in opdef.inputs:
            if a.kind == TENSOR:
                name = inputs[k] if k < len(inputs) else ""
                k += 1
                if name:
                    v = self.spec(name)
                    args.append(_spec(v.shape, mstype.from_numpy(np.dtype(v.dtype))))
                else:
                    args.append(None)
            else:
                args.append(attrs.get(a.name, a.default))
        static = {a.name for a in opdef.inputs if a.kind != TENSOR}
        try:
            p = plan(opdef, args, {k: v for k, v in attrs.items() if k not in static})
        except (TypeError, ValueError, NotImplementedError) as e:
            raise Unsupported(f"its translation to {op} is rejected: {e}") from None
        specs = p.outputs if p.multi else (p.outputs,)
        onnx_outs = [out] if isinstance(out, str) else list(out or [])
        base = self.node.name or self.node.op_type
        node_name = base if base not in self._node_names else self._fresh(base)
        self._node_names.add(node_name)
        outs = []
        for j, s in enumerate(specs):
            onnx = onnx_outs[j] if j < len(onnx_outs) else ""
            name = self._fresh(onnx) if onnx and onnx in self._used else \
                onnx or self._fresh(f"{node_name}/{op}")
            self._used.add(name)
            if onnx:
                self.names[onnx] = name
            self.graph.values[name] = Value(name, s.shape, np.dtype(s.dtype.np).name)
            outs.append(name)
        self.graph.nodes.append(Node(op, list(inputs), outs, attrs, node_name))
        return outs

    def alias(self, onnx_out: str, name: str) -> None:
        """Let ONNX output ``onnx_out`` be the existing tensor ``name`` (Identity, Dropout)."""
        self.names[onnx_out] = name


def _spec(shape, dtype):
    from ms_ops.opdef import TensorSpec

    return TensorSpec(tuple(shape), dtype)


def attr(node, name: str, default=None):
    """An ONNX node's attribute as a Python value (ints, floats, strings, lists), or
    ``default``; strings come back decoded."""
    from onnx import helper

    for a in node.attribute:
        if a.name == name:
            v = helper.get_attribute_value(a)
            return v.decode() if isinstance(v, bytes) else v
    return default
