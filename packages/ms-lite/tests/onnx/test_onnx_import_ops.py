"""Each common ONNX operator, built with onnx.helper, imports and matches onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import helper  # noqa: E402

R = np.random.default_rng(0)


def f32(*shape):
    return R.standard_normal(shape).astype(np.float32)


def node(op, ins, outs=("y",), **attrs):
    return helper.make_node(op, list(ins), list(outs), name=f"{op.lower()}_node", **attrs)


X4 = {"x": f32(2, 3, 8, 8)}
X2 = {"x": f32(4, 6)}

# (id, nodes, inputs, initializers, opset)
CASES = [
    ("conv", [node("Conv", ["x", "w", "b"], pads=[1, 1, 1, 1], strides=[2, 2])], X4,
     {"w": f32(5, 3, 3, 3), "b": f32(5)}, 17),
    ("conv_group_dilation", [node("Conv", ["x", "w"], group=3, dilations=[2, 2])], X4,
     {"w": f32(6, 1, 3, 3)}, 17),
    ("conv_same_lower", [node("Conv", ["x", "w"], auto_pad="SAME_LOWER", strides=[2, 2])],
     {"x": f32(1, 3, 7, 7)}, {"w": f32(4, 3, 2, 2)}, 17),
    ("conv_asym_pads", [node("Conv", ["x", "w"], pads=[0, 1, 2, 0])], X4,
     {"w": f32(2, 3, 3, 3)}, 13),
    ("conv_transpose", [node("ConvTranspose", ["x", "w", "b"], strides=[2, 2], pads=[1, 0, 1, 1],
                             output_padding=[1, 1])], X4, {"w": f32(3, 4, 3, 3), "b": f32(4)}, 17),
    ("conv_transpose_group", [node("ConvTranspose", ["x", "w"], group=3, dilations=[2, 1])], X4,
     {"w": f32(3, 2, 2, 3)}, 17),
    ("gemm_dense", [node("Gemm", ["x", "w", "b"], transB=1)], X2,
     {"w": f32(3, 6), "b": f32(3)}, 17),
    ("gemm_general", [node("Gemm", ["x", "w", "c"], alpha=0.5, beta=2.0, transA=1)],
     {"x": f32(6, 4)}, {"w": f32(6, 3), "c": f32(4, 3)}, 11),
    ("matmul_2d", [node("MatMul", ["x", "w"])], X2, {"w": f32(6, 5)}, 13),
    ("matmul_batched", [node("MatMul", ["x", "w"])], {"x": f32(2, 3, 4)}, {"w": f32(4, 5)}, 13),
    ("maxpool", [node("MaxPool", ["x"], kernel_shape=[2, 2], strides=[2, 2])], X4, {}, 17),
    ("maxpool_pads_ceil", [node("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2],
                                pads=[1, 1, 1, 1], ceil_mode=1)], X4, {}, 17),
    ("avgpool", [node("AveragePool", ["x"], kernel_shape=[3, 3], strides=[1, 1])], X4, {}, 17),
    ("avgpool_include_pad", [node("AveragePool", ["x"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                  count_include_pad=1)], X4, {}, 17),
    ("avgpool_same", [node("AveragePool", ["x"], kernel_shape=[2, 2], strides=[2, 2],
                           auto_pad="SAME_UPPER")], {"x": f32(1, 2, 5, 5)}, {}, 17),
    ("global_avg", [node("GlobalAveragePool", ["x"])], X4, {}, 17),
    ("global_max", [node("GlobalMaxPool", ["x"])], X4, {}, 17),
    ("batchnorm", [node("BatchNormalization", ["x", "s", "b", "m", "v"], epsilon=1e-3)], X4,
     {"s": f32(3), "b": f32(3), "m": f32(3), "v": np.abs(f32(3)) + 0.5}, 15),
    ("layernorm", [node("LayerNormalization", ["x", "s", "b"], axis=-1)], X2,
     {"s": f32(6), "b": f32(6)}, 17),
    ("relu_sigmoid_tanh", [node("Relu", ["x"], ["a"]), node("Sigmoid", ["a"], ["b"]),
                           node("Tanh", ["b"], ["y"])], X2, {}, 17),
    ("softmax13", [node("Softmax", ["x"], axis=1)], {"x": f32(2, 3, 4)}, {}, 13),
    ("softmax11_coerce", [node("Softmax", ["x"], axis=1)], {"x": f32(2, 3, 4)}, {}, 11),
    ("logsoftmax", [node("LogSoftmax", ["x"], axis=-1)], X2, {}, 17),
    ("leaky_elu", [node("LeakyRelu", ["x"], ["a"], alpha=0.1), node("Elu", ["a"], alpha=0.7)],
     X2, {}, 17),
    ("unary_math", [node("Abs", ["x"], ["a"]), node("Sqrt", ["a"], ["b"]),
                    node("Exp", ["b"], ["c"]), node("Log", ["c"], ["d"]),
                    node("Neg", ["d"], ["e"]), node("Erf", ["e"], ["y"])], X2, {}, 17),
    ("hard_sigmoid_swish", [node("HardSigmoid", ["x"], ["a"]), node("HardSwish", ["a"])], X2,
     {}, 17),
    ("prelu", [node("PRelu", ["x", "slope"])], X4, {"slope": f32(3, 1, 1)}, 17),
    ("clip_relu6", [node("Clip", ["x", "lo", "hi"])], X2,
     {"lo": np.float32(0), "hi": np.float32(6)}, 13),
    ("clip_range", [node("Clip", ["x", "lo", "hi"])], X2,
     {"lo": np.float32(-0.5), "hi": np.float32(0.3)}, 13),
    ("clip_attrs", [node("Clip", ["x"], min=-0.2, max=0.4)], X2, {}, 6),
    ("binary_broadcast", [node("Add", ["x", "c"], ["a"]), node("Mul", ["a", "x"], ["b"]),
                          node("Sub", ["b", "c"], ["d"]), node("Div", ["d", "k"], ["e"]),
                          node("Pow", ["e", "two"])], X2,
     {"c": f32(6), "k": np.float32(3.0), "two": np.float32(2.0)}, 17),
    ("variadic", [node("Max", ["x", "c", "x"], ["a"]), node("Min", ["a", "c"], ["b"]),
                  node("Sum", ["a", "b", "x"], ["s"]), node("Mean", ["s", "b"])], X2,
     {"c": f32(6)}, 13),
    ("reshape_flatten", [node("Reshape", ["x", "shape"], ["a"]), node("Flatten", ["a"], axis=2)],
     X4, {"shape": np.array([0, -1, 4, 4], np.int64)}, 17),
    ("transpose_concat", [node("Transpose", ["x"], ["a"], perm=[0, 2, 1, 3]),
                          node("Concat", ["a", "a", "a"], axis=1)], X4, {}, 17),
    ("squeeze_unsqueeze", [node("Unsqueeze", ["x", "ax"], ["a"]),
                           node("Squeeze", ["a", "ax0"])], X2,
     {"ax": np.array([0, 3], np.int64), "ax0": np.array([0], np.int64)}, 13),
    ("gather", [node("Gather", ["x", "i"], axis=1)], X2, {"i": np.array([[0, -1], [2, 3]])}, 13),
    ("slice", [node("Slice", ["x", "s", "e", "a", "st"])], X4,
     {"s": np.array([1, 7], np.int64), "e": np.array([100, 0], np.int64),
      "a": np.array([1, 3], np.int64), "st": np.array([1, -2], np.int64)}, 13),
    ("split", [node("Split", ["x", "sizes"], ["y", "z"], axis=1)], X2,
     {"sizes": np.array([2, 4], np.int64)}, 13),
    ("pad_zero", [node("Pad", ["x", "p"])], X4,
     {"p": np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64)}, 13),
    ("pad_reflect", [node("Pad", ["x", "p"], mode="reflect")], X4,
     {"p": np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64)}, 13),
    ("reduce", [node("ReduceMean", ["x"], ["a"], axes=[1], keepdims=0),
                node("ReduceSum", ["x", "ax"], ["b"], keepdims=1),
                node("ReduceMax", ["x"], ["c"], axes=[-1])], X4,
     {"ax": np.array([2, 3], np.int64)}, 13),
    ("argmax", [node("ArgMax", ["x"], axis=1, keepdims=1)], X2, {}, 13),
    ("cast", [node("Cast", ["x"], to=onnx.TensorProto.INT32)], {"x": f32(3, 4) * 5}, {}, 17),
    ("where_greater", [node("Greater", ["x", "c"], ["m"]), node("Where", ["m", "x", "c"])], X2,
     {"c": f32(6)}, 17),
    ("expand_tile", [node("Expand", ["x", "s"], ["a"]), node("Tile", ["a", "r"])],
     {"x": f32(3, 1)}, {"s": np.array([2, 3, 4], np.int64), "r": np.array([1, 2, 1], np.int64)},
     13),
    ("identity_dropout", [node("Identity", ["x"], ["a"]), node("Dropout", ["a"], ["b"]),
                          node("Relu", ["b"])], X2, {}, 13),
    ("trig", [node("Tanh", ["x"], ["t"]), node("Asin", ["t"], ["a"]), node("Acos", ["t"], ["b"]),
              node("Atan", ["a"], ["c"]), node("Sinh", ["b"], ["d"]), node("Cosh", ["c"], ["e"]),
              node("Acosh", ["e"], ["f"]), node("Asinh", ["d"], ["g"]), node("Atanh", ["t"], ["h"]),
              node("Tan", ["t"], ["i"]), node("Sum", ["f", "g", "h", "i"])], X2, {}, 13),
    ("mod_shrink_gather_elements",
     [node("Mod", ["k", "x"], ["m"], fmod=1), node("Shrink", ["m"], ["s"], lambd=0.3, bias=0.3),
      helper.make_node("Shrink", ["s"], ["h"], name="shrink2", lambd=0.2),
      node("GatherElements", ["h", "i"], axis=1)], X2,
     {"k": np.float32(1.5), "i": np.array([[0, 5], [1, 1], [2, 3], [4, 0]], np.int64)}, 13),
    ("int_mod_xor_isnan", [node("Mod", ["a", "b"], ["m"]), node("Equal", ["m", "zero"], ["e"]),
                           node("IsNaN", ["x"], ["n"]), node("Not", ["n"], ["nn"]),
                           node("Xor", ["e", "nn"])],
     {"a": np.arange(-12, 12, dtype=np.int32).reshape(4, 6), "x": f32(4, 6)},
     {"b": np.int32(5), "zero": np.int32(0)}, 13),
    ("gelu_softplus", [node("Softplus", ["x"], ["a"]), node("Gelu", ["a"])], X2, {}, 20),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_operator_matches_onnxruntime(case, check_onnx):
    name, nodes, inputs, inits, opset = case
    outputs = list(nodes[-1].output)
    result = check_onnx(nodes, inputs, outputs, inits, opset)
    assert all(r.status in ("translated", "folded") for r in result.nodes), result.report()


def test_shape_arithmetic_is_folded(check_onnx):
    """PyTorch's ``x.view(x.size(0), -1)``: Shape -> Gather -> Unsqueeze -> Concat -> Reshape."""
    nodes = [node("Shape", ["x"], ["s"]), node("Gather", ["s", "zero"], ["n"], axis=0),
             node("Unsqueeze", ["n", "ax"], ["n1"]),
             node("Concat", ["n1", "minus1"], ["shape"], axis=0),
             node("Reshape", ["x", "shape"])]
    inits = {"zero": np.array(0, np.int64), "ax": np.array([0], np.int64),
             "minus1": np.array([-1], np.int64)}
    result = check_onnx(nodes, X4, ["y"], inits, 13)
    statuses = {r.name: r.status for r in result.nodes}
    assert statuses["reshape_node"] == "translated"
    assert [n.op for n in result.graph.nodes] == ["Flatten"]  # keeps any batch size
    assert sum(s == "folded" for s in statuses.values()) == 4
