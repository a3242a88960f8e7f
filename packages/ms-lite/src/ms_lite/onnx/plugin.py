"""The hookimpls of ms-lite's ONNX side: the ``microspore convert`` command and the ONNX
translators (import by ONNX operator type, export by registry operator).

Every value is a ``"module:attr"`` string: loading the registry imports neither onnx nor
the translators.
"""

from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView

_NN = "ms_lite.onnx.import_nn"
_MATH = "ms_lite.onnx.import_math"
_ARRAY = "ms_lite.onnx.import_array"

# ONNX operator type -> importer.
IMPORTERS = {
    "Conv": f"{_NN}:conv", "ConvTranspose": f"{_NN}:conv_transpose", "Gemm": f"{_NN}:gemm",
    "MatMul": f"{_NN}:matmul",
    "MaxPool": f"{_NN}:max_pool", "AveragePool": f"{_NN}:average_pool",
    "GlobalAveragePool": f"{_NN}:global_average_pool",
    "GlobalMaxPool": f"{_NN}:global_max_pool",
    "BatchNormalization": f"{_NN}:batch_normalization",
    "LayerNormalization": f"{_NN}:layer_normalization",
    **dict.fromkeys((
        "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Neg", "Floor", "Ceil", "Sin",
        "Cos", "Erf", "Reciprocal", "Sign", "Softsign", "HardSwish", "Mish", "Softplus", "Tan",
        "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "IsNaN"),
        f"{_MATH}:unary"),
    **dict.fromkeys((
        "Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "Less", "GreaterOrEqual",
        "LessOrEqual", "And", "Or", "Xor"), f"{_MATH}:binary"),
    **dict.fromkeys(("Max", "Min", "Sum", "Mean"), f"{_MATH}:variadic"),
    "LeakyRelu": f"{_MATH}:leaky_relu", "Elu": f"{_MATH}:elu", "Gelu": f"{_MATH}:gelu",
    "HardSigmoid": f"{_MATH}:hard_sigmoid", "PRelu": f"{_MATH}:prelu",
    "Clip": f"{_MATH}:clip", "Softmax": f"{_MATH}:softmax", "LogSoftmax": f"{_MATH}:softmax",
    "IsInf": f"{_MATH}:is_inf", "Mod": f"{_MATH}:mod", "Shrink": f"{_MATH}:shrink",
    "GatherElements": f"{_MATH}:gather_elements",
    "Cast": f"{_MATH}:cast", "Where": f"{_MATH}:where", "Not": f"{_MATH}:not_",
    "ArgMax": f"{_MATH}:arg_reduce", "ArgMin": f"{_MATH}:arg_reduce",
    **dict.fromkeys(("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"),
                    f"{_MATH}:reduce"),
    "Reshape": f"{_ARRAY}:reshape", "Flatten": f"{_ARRAY}:flatten",
    "Transpose": f"{_ARRAY}:transpose", "Concat": f"{_ARRAY}:concat",
    "Squeeze": f"{_ARRAY}:squeeze", "Unsqueeze": f"{_ARRAY}:unsqueeze",
    "Gather": f"{_ARRAY}:gather", "Slice": f"{_ARRAY}:slice_", "Split": f"{_ARRAY}:split",
    "Pad": f"{_ARRAY}:pad", "Expand": f"{_ARRAY}:expand", "Tile": f"{_ARRAY}:tile",
    "Identity": f"{_ARRAY}:identity", "Dropout": f"{_ARRAY}:identity",
    "Resize": "ms_lite.onnx.import_resize:resize",
    "Upsample": "ms_lite.onnx.import_resize:upsample",
    "LSTM": "ms_lite.onnx.import_rnn:lstm", "GRU": "ms_lite.onnx.import_rnn:gru",
    "If": "ms_lite.onnx.import_control:if_",
}


@hookimpl
def ms_register_onnx(registry: RegistryView) -> None:
    from ms_lite.onnx.export_table import EXPORTERS

    for op_type, fn in IMPORTERS.items():
        registry.add_onnx_importer(op_type, fn)
    for op, fn in EXPORTERS.items():
        registry.add_onnx_exporter(op, fn)


@hookimpl
def ms_register_cli_commands(registry: RegistryView) -> None:
    registry.add_cli_command(
        "convert", "ms_lite.onnx.cli:main",
        help="MindConverter: an ONNX model -> a microspore package (model.py, a safetensors "
             "checkpoint, a report of unsupported operators)")
