"""The lite graph IR shared by the converter, the runtime, the ONNX writer and codegen.

``Graph``/``Value``/``Node`` (``ms_lite.ir.graph``) hold a model as named tensors;
``from_cell(net, *inputs)`` captures a Cell through ms-graph's tracer with its weights
folded in as constants (ms-graph and ms-nn are imported only when it is called).
"""

from ms_lite.ir.graph import Graph, IRError, Node, Value

__all__ = ["Graph", "Value", "Node", "IRError", "from_cell", "UnsupportedOperatorError"]


def __getattr__(name: str):
    if name in ("from_cell", "UnsupportedOperatorError"):
        from ms_lite.ir import capture

        return getattr(capture, name)
    raise AttributeError(f"module 'ms_lite.ir' has no attribute {name!r}")
