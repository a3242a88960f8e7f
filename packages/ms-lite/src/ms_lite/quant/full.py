"""Full int8 quantization (``quant_type=FULL_QUANT``): convolutions, fully connected
layers, max pooling and ReLU run in int8 between QuantDTypeCast nodes; Add, Mul, Concat
and (unpadded) AvgPool too where their inputs already are int8 (a residual block stays
int8; a float tensor is never quantized only to feed one of these); the rest stays float
(a Softmax reads its input dequantized), and the model's inputs and outputs stay float32
(MindSpore Lite's default).
"""

from __future__ import annotations

import numpy as np

from ms_lite.converter.passes._util import drop_unused_constants, fresh_name
from ms_lite.ir import Graph, Node, Value
from ms_lite.kernels.quantized_more import add_params
from ms_lite.quant import scheme
from ms_lite.quant.calibrate import calibrate
from ms_lite.quant.params import QuantParam
from ms_lite.runtime.executor import Executor

__all__ = ["full_quant", "QUANTIZABLE"]

QUANTIZABLE = ("Conv2DFusion", "FullConnection", "MaxPool", "ReLU", "Reshape", "Add", "Mul",
               "Concat", "AvgPool")
_IF_INT8 = ("Add", "Mul", "Concat", "AvgPool")  # only where the inputs are int8 already


def _samples(graph: Graph, config) -> list[list[np.ndarray]]:
    per_input = [config.calibration(v.name, v.shape, np.dtype(v.dtype)) for v in graph.inputs]
    n = min(len(s) for s in per_input)
    return [[s[i] for s in per_input] for i in range(n)]


def _act_bounds(activation: str, scale: float, zp: int) -> tuple[int, int]:
    lo, hi = scheme.QMIN, scheme.QMAX
    if activation in ("RELU", "RELU6"):
        lo = max(lo, zp)
    if activation == "RELU6":
        hi = min(hi, zp + int(round(6.0 / scale)))
    return lo, hi


class _Rewriter:
    def __init__(self, graph: Graph, ranges: dict, report):
        self.g = graph
        specs = Executor(graph).specs
        self.shapes = {k: v.shape for k, v in specs.items()}
        self.dtypes = {k: np.dtype(v.dtype.np).name for k, v in specs.items()}
        self.ranges = ranges
        self.report = report
        self.params: dict[str, tuple[float, int]] = {}  # float tensor -> its int8 form's
        self.q: dict[str, str] = {}   # float tensor name -> int8 tensor name
        self.f: set[str] = {v.name for v in graph.inputs} | set(graph.constants)
        self.nodes: list[Node] = []

    def _value(self, name: str, shape, scale: float, zp: int) -> None:
        self.g.values[name] = Value(name, shape, "int8", QuantParam([scale], [zp]))

    def int8(self, name: str) -> str:
        """The int8 form of float tensor ``name``, quantizing it here if needed."""
        if name in self.q:
            return self.q[name]
        lo, hi = self.ranges[name]
        scale, zp = scheme.activation_params(lo, hi)
        qn = fresh_name(self.g, f"{name}@int8")
        self.nodes.append(Node("QuantDTypeCast", [name], [qn],
                               {"dst_t": "int8", "scale": np.array([scale]),
                                "zero_point": np.array([zp]), "axis": -1},
                               fresh_name(self.g, f"{name}.quant")))
        self._value(qn, self.shapes[name], scale, zp)
        self.q[name], self.params[name] = qn, (scale, zp)
        return qn

    def float_(self, name: str) -> None:
        """Make float tensor ``name`` exist (dequantizing its int8 form) if it does not."""
        if name in self.f or not name:
            return
        scale, zp = self.params[name]
        self.nodes.append(Node("QuantDTypeCast", [self.q[name]], [name],
                               {"dst_t": "float32", "scale": np.array([scale]),
                                "zero_point": np.array([zp]), "axis": -1},
                               fresh_name(self.g, f"{name}.dequant")))
        self.f.add(name)

    def quantizable(self, node: Node) -> bool:
        if node.op not in QUANTIZABLE or not all(o in self.ranges for o in node.outputs):
            return False
        x = node.inputs[0]
        if x not in self.ranges or self.dtypes[x] != "float32":
            return False
        if node.op in _IF_INT8:
            ins = [i for i in node.inputs if i]
            if node.op == "AvgPool" and str(node.attrs.get("pad_mode", "VALID")).upper() \
                    != "VALID":
                return False
            return len(ins) == (1 if node.op == "AvgPool" else 2) and all(
                i in self.q and self.dtypes[i] == "float32" for i in ins)
        if node.op in ("Conv2DFusion", "FullConnection"):
            w = self.g.constants.get(node.inputs[1])
            if w is None or (len(node.inputs) > 2 and node.inputs[2]
                             and node.inputs[2] not in self.g.constants):
                return False
        return True

    def weighted(self, node: Node) -> None:
        xq = self.int8(node.inputs[0])
        s_in, zp_in = self.params[node.inputs[0]]
        out = node.outputs[0]
        s_out, zp_out = scheme.activation_params(*self.ranges[out])
        w = self.g.constants[node.inputs[1]].astype(np.float64)
        ws = scheme.weight_params(w, 0)
        wq = scheme.quantize(w, ws, np.zeros(ws.size, np.int64), 0, -127, 127)
        b = self.g.constants[node.inputs[2]].astype(np.float64) if len(node.inputs) > 2 \
            and node.inputs[2] else np.zeros(w.shape[0])
        bq = np.clip(np.rint(b / (s_in * ws)), -(2 ** 31), 2 ** 31 - 1).astype(np.int32)
        mults = [scheme.quantize_multiplier(s_in * s / s_out) for s in ws]
        names = []
        for suffix, arr in (("weight@int8", wq), ("bias@int32", bq),
                            ("multiplier", np.array([m for m, _ in mults], np.int32)),
                            ("shift", np.array([s for _, s in mults], np.int32))):
            names.append(fresh_name(self.g, f"{node.name}.{suffix}"))
            self.g.constants[names[-1]] = arr
        self.g.values[names[0]] = Value(names[0], wq.shape, "int8",
                                        QuantParam(ws, np.zeros(ws.size, np.int64), 0))
        act_min, act_max = _act_bounds(node.attrs.get("activation_type"), s_out, zp_out)
        attrs = {k: v for k, v in node.attrs.items() if k != "activation_type"}
        attrs.update(input_zero_point=zp_in, output_zero_point=zp_out, act_min=act_min,
                     act_max=act_max)
        op = "QuantConv2D" if node.op == "Conv2DFusion" else "QuantFullConnection"
        qo = fresh_name(self.g, f"{out}@int8")
        self.nodes.append(Node(op, [xq] + names, [qo], attrs, node.name))
        self._value(qo, self.shapes[out], s_out, zp_out)
        self.q[out], self.params[out] = qo, (s_out, zp_out)
        self.report.record(node.name, f"{op} {node.name!r}", "FULL_QUANT: int8 in and out "
                           f"(input scale {s_in:.4g}, output scale {s_out:.4g}), weights int8 "
                           "per channel, bias int32, integer requantization")

    def combine(self, node: Node) -> None:
        """Add, Mul, Concat of two int8 tensors, requantized to the output's range."""
        a, b = node.inputs[:2]
        (s1, zp1), (s2, zp2) = self.params[a], self.params[b]
        out = node.outputs[0]
        s_out, zp_out = scheme.activation_params(*self.ranges[out])
        attrs = {"input1_zero_point": zp1, "input2_zero_point": zp2,
                 "output_zero_point": zp_out}
        if node.op == "Add":
            attrs.update(add_params(s1, s2, s_out))
        elif node.op == "Mul":
            m, sh = scheme.quantize_multiplier(s1 * s2 / s_out)
            attrs.update(multiplier=m, shift=sh)
        else:
            for k, s_in in ((1, s1), (2, s2)):
                m, sh = scheme.quantize_multiplier(s_in / s_out)
                attrs.update({f"multiplier{k}": m, f"shift{k}": sh})
            attrs["axis"] = node.attrs.get("axis", 0)
        op = "Quant" + node.op
        qo = fresh_name(self.g, f"{out}@int8")
        self.nodes.append(Node(op, [self.q[a], self.q[b]], [qo], attrs, node.name))
        self._value(qo, self.shapes[out], s_out, zp_out)
        self.q[out], self.params[out] = qo, (s_out, zp_out)
        self.report.record(node.name, f"{op} {node.name!r}", "FULL_QUANT: both inputs int8; "
                           f"integer-only rescaling to the output scale {s_out:.4g}")

    def passthrough(self, node: Node) -> None:
        xq = self.int8(node.inputs[0])
        s, zp = self.params[node.inputs[0]]
        out = node.outputs[0]
        qo = fresh_name(self.g, f"{out}@int8")
        op, attrs = {"MaxPool": ("QuantMaxPool", dict(node.attrs)),
                     "AvgPool": ("QuantAvgPool", dict(node.attrs)),
                     "ReLU": ("QuantReLU", {"zero_point": zp}),
                     "Reshape": ("Reshape", dict(node.attrs))}[node.op]
        self.nodes.append(Node(op, [xq], [qo], attrs, node.name))
        self._value(qo, self.shapes[out], s, zp)
        self.q[out], self.params[out] = qo, (s, zp)
        self.report.record(node.name, f"{op} {node.name!r} (int8)", "FULL_QUANT: runs on "
                           "int8 with the input's scale and zero point")

    def run(self) -> None:
        for node in self.g.nodes:
            if self.quantizable(node):
                if node.op in ("Conv2DFusion", "FullConnection"):
                    self.weighted(node)
                elif node.op in ("Add", "Mul", "Concat"):
                    self.combine(node)
                else:
                    self.passthrough(node)
                continue
            for i in node.inputs:
                self.float_(i)
            self.nodes.append(node)
            self.f.update(node.outputs)
        for v in self.g.outputs:
            self.float_(v.name)
        self.g.nodes = self.nodes


def full_quant(graph: Graph, report, config) -> Graph:
    """Quantize ``graph`` with activation ranges calibrated on ``config``'s samples."""
    samples = _samples(graph, config)
    ranges = calibrate(graph, samples)
    for name in graph.constants:
        ranges.pop(name, None)
    rw = _Rewriter(graph, ranges, report)
    rw.run()
    drop_unused_constants(graph)
    report.note(f"FULL_QUANT: calibrated on {sum(len(s[0]) for s in samples)} samples "
                f"({config.activation_quant_method}); inputs and outputs stay float32")
    return graph.validate()
