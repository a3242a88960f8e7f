"""The lite graph IR: a flat, serializable graph of named tensors.

Unlike ms-graph's IR (object identity, live Parameters, control flow), every tensor here
is a name: graph inputs, constants (weights folded in as numpy arrays) and node outputs.
That is what a file, a converter pass, the runtime's planner, the ONNX writer and the C
code generator all want to read.

>>> import numpy as np
>>> g = Graph(inputs=[Value("x", (2, 3), "float32")], outputs=[Value("y", (2, 3), "float32")],
...           nodes=[Node("Add", ["x", "b"], ["y"], {}, "add0")],
...           constants={"b": np.ones(3, np.float32)}, name="tiny")
>>> g.validate() is g
True
>>> print(g.text())
graph tiny(x: (2, 3) float32) {
  const b: (3,) float32
  y = Add(x, b)  # add0
  return y
}
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Value", "Node", "Graph", "IRError"]


class IRError(ValueError):
    """A graph that breaks the IR's rules (an undefined name, a cycle, a bad constant)."""


@dataclass(frozen=True)
class Value:
    """A named tensor's type: ``dtype`` is a numpy dtype name (``"float32"``, ``"int8"``).

    ``quant`` is the quantization of an int8 tensor, or None (``ms_lite.quant.QuantParam``:
    scales, zero points, the channel axis).
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    quant: object = None

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        object.__setattr__(self, "dtype", np.dtype(self.dtype).name)


@dataclass
class Node:
    """One operator call.

    Args:
        op: the registry's primitive name (``"Conv2D"``), or a lite operator registered
            under the kind ``"lite_op"`` (``"Conv2DFusion"``, the converter's fused and
            quantized forms, named as in MindSpore Lite).
        inputs: the names of the tensor inputs, in the operator's input order; ``""`` is an
            optional input left out (ONNX's convention).
        outputs: the names of the outputs.
        attrs: the operator's attributes and its static (non-tensor) inputs by argument
            name, as the kernel receives them (``Reshape``'s ``input_shape``; a dtype is a
            ``ms_tensor`` dtype).
        name: unique within the graph; the conversion report refers to it.
    """

    op: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict = field(default_factory=dict)
    name: str = ""


@dataclass
class Graph:
    """A straight-line graph: ``nodes`` in topological order.

    Attributes:
        inputs / outputs: the graph's arguments and results, with their types.
        nodes: operator calls; a node input names a graph input, a constant or an earlier
            node's output.
        constants: weights and other fixed tensors by name.
        name: the model's name.
        values: the type of every node output by name (filled by ``from_cell``, the
            converter and the runtime's shape inference; may be empty).
    """

    inputs: list[Value]
    outputs: list[Value]
    nodes: list[Node]
    constants: dict[str, np.ndarray]
    name: str = "graph"
    values: dict[str, Value] = field(default_factory=dict)

    def value(self, name: str) -> Value:
        """The type of any named tensor (input, constant or node output)."""
        for v in self.inputs:
            if v.name == name:
                return v
        if name in self.constants:
            c = self.constants[name]
            return Value(name, c.shape, c.dtype.name)
        if name in self.values:
            return self.values[name]
        raise IRError(f"graph {self.name!r}: no tensor named {name!r}")

    def producers(self) -> dict[str, Node]:
        """Node output name -> the node that computes it."""
        return {out: n for n in self.nodes for out in n.outputs}

    def consumers(self) -> dict[str, list[Node]]:
        """Tensor name -> the nodes that read it, in order."""
        users: dict[str, list[Node]] = {}
        for n in self.nodes:
            for i in n.inputs:
                if i:
                    users.setdefault(i, []).append(n)
        return users

    def validate(self) -> Graph:
        """Check names and order; raises ``IRError`` naming the node and the tensor."""
        defined = {v.name for v in self.inputs}
        for name, c in self.constants.items():
            if not isinstance(c, np.ndarray):
                raise IRError(f"graph {self.name!r}: constant {name!r} is a "
                              f"{type(c).__name__}, not a numpy array")
            if name in defined:
                raise IRError(f"graph {self.name!r}: {name!r} is both an input and a constant")
            defined.add(name)
        names = set()
        for n in self.nodes:
            if n.name in names:
                raise IRError(f"graph {self.name!r}: two nodes are named {n.name!r}")
            names.add(n.name)
            for i in n.inputs:
                if i and i not in defined:
                    raise IRError(f"graph {self.name!r}: node {n.name!r} ({n.op}) reads "
                                  f"{i!r}, which is not defined before it")
            for o in n.outputs:
                if o in defined:
                    raise IRError(f"graph {self.name!r}: node {n.name!r} ({n.op}) redefines "
                                  f"{o!r}")
                defined.add(o)
        for v in self.outputs:
            if v.name not in defined:
                raise IRError(f"graph {self.name!r}: output {v.name!r} is never computed")
        return self

    def text(self) -> str:
        """One line per node, for reading and for error messages."""
        args = ", ".join(f"{v.name}: {v.shape} {v.dtype}" for v in self.inputs)
        lines = [f"graph {self.name}({args}) {{"]
        for name, c in self.constants.items():
            lines.append(f"  const {name}: {c.shape} {c.dtype.name}")
        for n in self.nodes:
            attrs = ", ".join(f"{k}={v!r}" for k, v in n.attrs.items())
            call = ", ".join(i or "None" for i in n.inputs) + (f"; {attrs}" if attrs else "")
            lines.append(f"  {', '.join(n.outputs)} = {n.op}({call})  # {n.name}")
        lines.append(f"  return {', '.join(v.name for v in self.outputs)}")
        lines.append("}")
        return "\n".join(lines)
