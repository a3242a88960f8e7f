"""Precision changes at conversion: float16 weights (``--fp16=on``), weight-only int8
(``quant_type=WEIGHT_QUANT``) and full int8 (``quant_type=FULL_QUANT``)."""

from __future__ import annotations

import numpy as np

from ms_lite.converter.passes._util import fresh_name
from ms_lite.ir import Graph, Node
from ms_lite.quant import scheme
from ms_tensor import dtype as mstype

__all__ = ["apply_precision", "to_fp16", "weight_quant"]

_WEIGHTED = ("Conv2DFusion", "FullConnection", "Conv2D", "Dense", "MatMul")


def apply_precision(graph: Graph, report, fp16: bool = False, config=None) -> Graph:
    """``graph`` with the precision the options ask for (unchanged if none)."""
    quant = config.quant_type if config is not None else ""
    if quant and fp16:
        raise ValueError("converter: --fp16=on and quant_type=" + quant + " exclude each "
                         "other; choose one")
    if quant == "WEIGHT_QUANT":
        return weight_quant(graph, report)
    if quant == "FULL_QUANT":
        from ms_lite.quant.full import full_quant

        return full_quant(graph, report, config)
    return to_fp16(graph, report) if fp16 else graph


def _dequant_node(graph: Graph, name: str, stored: np.ndarray, attrs: dict, op: str) -> str:
    """Store ``stored`` as constant ``name@...`` and compute float ``name`` from it with
    one node (run once when the runtime builds the model)."""
    kept = fresh_name(graph, f"{name}@{stored.dtype.name}")
    graph.constants[kept] = stored
    node_name = fresh_name(graph, f"{name}.dequant")
    graph.nodes.insert(0, Node(op, [kept], [name], attrs, node_name))
    del graph.constants[name]
    return kept


def to_fp16(graph: Graph, report) -> Graph:
    """Store every float32 constant as float16, cast back to float32 when the model is
    built (MindSpore Lite's ``--fp16=on``: half the file, float32 arithmetic)."""
    for name, c in list(graph.constants.items()):
        if c.dtype != np.float32 or c.size < 2:
            continue
        _dequant_node(graph, name, c.astype(np.float16), {"dtype": mstype.float32}, "Cast")
    report.note("fp16: float32 weights stored as float16 and cast back to float32 once, "
                "when the model is built")
    return graph.validate()


def weight_quant(graph: Graph, report) -> Graph:
    """Store the weights of convolutions and matrix products as int8, per output
    channel, dequantized once when the model is built."""
    done = []
    for node in list(graph.nodes):
        if node.op not in _WEIGHTED or len(node.inputs) < 2:
            continue
        w_name = node.inputs[1]
        w = graph.constants.get(w_name)
        if w is None or w.dtype.kind != "f" or w.ndim < 2:
            continue
        axis = 1 if node.op == "MatMul" and not node.attrs.get("transpose_b") else 0
        scale = scheme.weight_params(w, axis)
        q = scheme.quantize(w, scale, np.zeros(scale.size, np.int64), axis, -127, 127)
        _dequant_node(graph, w_name, q, {"dst_t": w.dtype.name, "scale": scale,
                                         "zero_point": np.zeros(scale.size, np.int64),
                                         "axis": axis}, "QuantDTypeCast")
        done.append(node.name)
        report.record(node.name, report.entries[node.name].became + ", int8 weights"
                      if node.name in report.entries else "int8 weights",
                      f"WEIGHT_QUANT: weight {w_name} stored as int8, one scale per "
                      "output channel")
    report.note(f"WEIGHT_QUANT: int8 weights for {', '.join(done) or 'no node'}; "
                "arithmetic stays float32")
    return graph.validate()
