"""MindSpore's ``export`` / ``load`` / ``nn.GraphCell`` for microspore (the meta-package
forwards ``ms.export``, ``ms.load`` and ``nn.GraphCell`` here).

``export`` captures the network with ``ms_lite.ir.from_cell`` (ms-graph's trace, weights
folded in) and hands the graph to the writer of the format: ``ms_lite.mindir`` for
MINDIR where it offers ``save_graph`` (else the lite container, which the converter and
``load`` read too), ``ms_lite.onnx.export.export_onnx`` for ONNX.
"""

from __future__ import annotations

import os

import numpy as np

from ms_lite.converter.sources import mindir_codec, read_model
from ms_lite.ir import Graph

__all__ = ["export", "load", "GraphCell"]

_SUFFIX = {"MINDIR": ".mindir", "ONNX": ".onnx"}


def export(net, *inputs, file_name: str, file_format: str = "MINDIR", **kwargs) -> str:
    """Save ``net`` run on ``inputs`` as ``file_name`` (+ ".mindir" / ".onnx" when it has
    no such suffix, as MindSpore does); returns the path written.

    Raises:
        ValueError: an unknown ``file_format`` (MindSpore's AIR needs Ascend's toolchain).
        ms_lite.ir.UnsupportedOperatorError / the ONNX writer's error: naming the operator
            that the format cannot hold.
    """
    from ms_lite.ir import from_cell

    fmt = str(file_format).upper()
    if fmt not in _SUFFIX:
        raise ValueError(f"export: file_format {file_format!r} is not supported; use one of "
                         f"{sorted(_SUFFIX)} (AIR needs Ascend's toolchain)")
    if kwargs:
        raise TypeError(f"export: unsupported keyword arguments {sorted(kwargs)}")
    path = os.fspath(file_name)
    if not path.lower().endswith(_SUFFIX[fmt]):
        path += _SUFFIX[fmt]
    graph = from_cell(net, *inputs)
    if fmt == "ONNX":
        from ms_lite.onnx.export import export_onnx

        export_onnx(graph, path)
        return path
    codec = mindir_codec()
    if codec is not None:
        codec[0](graph, path)
    else:
        from ms_lite.format import save

        save(graph, path, meta={"producer": "microspore.export", "format": "MINDIR"})
    return path


def load(file_name, **kwargs) -> Graph:
    """Read a MINDIR file that ``export`` wrote; ``nn.GraphCell(graph)`` runs it."""
    if kwargs:
        raise TypeError(f"load: unsupported keyword arguments {sorted(kwargs)}")
    return read_model("MINDIR", file_name)


class GraphCell:
    """A loaded graph as a callable network (MindSpore's ``nn.GraphCell``), run by the
    lite runtime's executor; re-planned when the input shapes change.

    >>> import numpy as np
    >>> from ms_lite.ir import Graph, Node, Value
    >>> g = Graph([Value("x", (2,), "float32")], [Value("y", (2,), "float32")],
    ...           [Node("Neg", ["x"], ["y"], {}, "neg")], {})
    >>> GraphCell(g)(np.array([1.0, -2.0], np.float32))
    Tensor(shape=[2], dtype=Float32, value= [-1.00000000e+00,  2.00000000e+00])
    """

    def __init__(self, graph: Graph, params_init=None, obf_random_seed=None):
        if not isinstance(graph, Graph):
            raise TypeError(f"GraphCell: expected a graph from ms.load, got "
                            f"{type(graph).__name__}")
        if params_init is not None or obf_random_seed is not None:
            raise ValueError("GraphCell: params_init and obf_random_seed are not supported")
        self.graph = graph
        self._plans: dict = {}

    def __call__(self, *inputs):
        from ms_lite.runtime.executor import Executor
        from ms_lite.runtime.shapes import resized
        from ms_tensor import Tensor
        from ms_tensor.tensor import array_of

        if len(inputs) != len(self.graph.inputs):
            raise TypeError(f"GraphCell({self.graph.name}): takes {len(self.graph.inputs)} "
                            f"inputs, got {len(inputs)}")
        arrays = [array_of(x) if isinstance(x, Tensor) else np.asarray(x) for x in inputs]
        for a, v in zip(arrays, self.graph.inputs):
            if a.dtype.name != v.dtype:
                raise TypeError(f"GraphCell({self.graph.name}): input {v.name!r} has dtype "
                                f"{a.dtype}, the graph takes {v.dtype}")
        key = tuple(a.shape for a in arrays)
        ex = self._plans.get(key)
        if ex is None:
            shapes = list(key)
            same = shapes == [v.shape for v in self.graph.inputs]
            ex = self._plans[key] = Executor(self.graph if same else
                                             resized(self.graph, shapes), shapes)
        outs = [Tensor(np.array(o)) for o in ex.run(arrays)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    construct = __call__
