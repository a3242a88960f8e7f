"""What a template sees of one node, and the table of const arrays that become weight.c."""

from __future__ import annotations

import re

import numpy as np

from ms_lite.codegen.templates import C_TYPES

__all__ = ["NodeContext", "WeightTable", "c_name", "c_type"]


def c_name(name: str) -> str:
    """A C identifier from a tensor name (``conv1.weight`` -> ``conv1_weight``)."""
    s = re.sub(r"\W", "_", name)
    return s if s and not s[0].isdigit() else "t_" + s


def c_type(dtype: str, where: str) -> str:
    try:
        return C_TYPES[dtype]
    except KeyError:
        raise ValueError(f"{where}: dtype {dtype} has no C type in the code generator "
                         f"(supported: {', '.join(C_TYPES)})") from None


class WeightTable:
    """Const arrays by C name, in the order added (weight.c keeps them in flash)."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self._by_source: dict[str, str] = {}

    def add(self, name: str, array: np.ndarray, source: str | None = None) -> str:
        if source is not None and source in self._by_source:
            return self._by_source[source]
        base = "w_" + c_name(name)
        cname, k = base, 1
        while cname in self.arrays:
            cname, k = f"{base}_{k}", k + 1
        self.arrays[cname] = np.ascontiguousarray(array)
        if source is not None:
            self._by_source[source] = cname
        return cname

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays.values())


class NodeContext:
    """One node as its template sees it: input/output types (``Value`` or None for an
    input left out), attributes, C pointers, and ``add_const`` for derived arrays."""

    def __init__(self, node, graph, pointers: dict[str, str], weights: WeightTable,
                 offsets: dict[str, int] | None = None):
        self.node = node
        self.graph = graph
        self.attrs = node.attrs
        self.inputs = [graph.value(n) if n else None for n in node.inputs]
        self.outputs = [graph.value(n) for n in node.outputs]
        self._pointers = pointers
        self._weights = weights
        self._offsets = offsets or {}

    def shares_memory(self, i: int = 0, o: int = 0) -> bool:
        """Whether the planner put output ``o`` on input ``i``'s bytes (in place)."""
        a = self._offsets.get(self.node.inputs[i]) if i < len(self.node.inputs) else None
        return a is not None and a == self._offsets.get(self.node.outputs[o])

    def ptr(self, i: int) -> str:
        """The C expression of input ``i`` (``0`` when left out)."""
        if i >= len(self.node.inputs) or not self.node.inputs[i]:
            return "0"
        return self._pointers[self.node.inputs[i]]

    def out_ptr(self, i: int = 0) -> str:
        return self._pointers[self.node.outputs[i]]

    def numel(self, i: int = 0, of: str = "outputs") -> int:
        return int(np.prod(getattr(self, of)[i].shape, dtype=np.int64))

    def fields_nbytes(self, i: int = 0) -> int:
        """Bytes of output ``i``."""
        return self.numel(i) * np.dtype(self.outputs[i].dtype).itemsize

    def const(self, i: int):
        """The constant array of input ``i``, or None when it is computed."""
        name = self.node.inputs[i] if i < len(self.node.inputs) else ""
        return self.graph.constants.get(name) if name else None

    def add_const(self, suffix: str, array: np.ndarray) -> str:
        """A const array derived from this node (per-channel multipliers, strides)."""
        return self._weights.add(f"{self.node.name}_{suffix}", np.asarray(array))

    def fields(self, op) -> dict:
        """The fields every call template may use (see ``CTemplate``); input pointers
        resolve when a template uses them, so an unused constant is never emitted."""
        f = _Fields()
        names = list(getattr(op, "input_names", ()) or ())
        for i in range(len(self.node.inputs)):
            f.lazy[f"in{i}"] = (lambda i=i: self.ptr(i))
            if i < len(names):
                f.lazy[names[i]] = f.lazy[f"in{i}"]
        for name in names:
            f.lazy.setdefault(name, lambda: "0")
        for i, name in enumerate(self.node.outputs):
            f[f"out{i}"] = self._pointers[name]
        f["out"] = f["out0"]
        f["n"] = self.numel(0)
        f["nbytes"] = self.fields_nbytes(0)
        for k, v in self.attrs.items():
            if isinstance(v, (bool, int, float)):
                f.setdefault(k, int(v) if isinstance(v, bool) else v)
        return f


class _Fields(dict):
    """Template fields; ``lazy`` ones are computed on first use."""

    def __init__(self):
        super().__init__()
        self.lazy = {}

    def __missing__(self, key):
        if key in self.lazy:
            value = self[key] = self.lazy[key]()
            return value
        raise KeyError(key)

    def keys_known(self) -> list[str]:
        return sorted(set(self) | set(self.lazy))
