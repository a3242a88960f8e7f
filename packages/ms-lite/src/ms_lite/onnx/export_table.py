"""Registry operator -> its ONNX exporter, as ``"module:function"`` strings (registered by
``ms_lite.onnx.plugin``; nothing is imported until a graph is exported)."""

from ms_lite.onnx.export_ops_names import RENAMED, SAME_NAME

_OPS = "ms_lite.onnx.export_ops"
_ARR = "ms_lite.onnx.export_array"

EXPORTERS = {
    **dict.fromkeys(SAME_NAME, f"{_OPS}:same"),
    **dict.fromkeys(RENAMED, f"{_OPS}:same"),
    "Conv2D": f"{_OPS}:conv2d", "Conv2DBackpropInput": f"{_OPS}:conv2d_transpose",
    "MaxPool": f"{_OPS}:pool", "AvgPool": f"{_OPS}:pool",
    "Dense": f"{_OPS}:dense", "MatMul": f"{_OPS}:matmul", "BatchMatMul": f"{_OPS}:batch_matmul",
    "BatchNorm": f"{_OPS}:batch_norm", "LayerNorm": f"{_OPS}:layer_norm",
    "Softmax": f"{_OPS}:softmax", "LogSoftmax": f"{_OPS}:softmax",
    "LeakyReLU": f"{_OPS}:leaky_relu", "Elu": f"{_OPS}:elu", "ReLU6": f"{_OPS}:relu6",
    "HSigmoid": f"{_OPS}:hsigmoid", "GeLU": f"{_OPS}:gelu", "PReLU": f"{_OPS}:prelu",
    "ClampTensor": f"{_OPS}:clamp", "Argmax": f"{_OPS}:argmax", "Argmin": f"{_OPS}:argmax",
    **dict.fromkeys(("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"),
                    f"{_OPS}:reduce"),
    "AdaptiveAvgPool2D": f"{_OPS}:adaptive_avg_pool",
    "SiLU": f"{_OPS}:silu", "Square": f"{_OPS}:square", "Rsqrt": f"{_OPS}:rsqrt",
    "FloorMod": f"{_OPS}:floor_mod", "SoftShrink": f"{_OPS}:shrink", "HShrink": f"{_OPS}:shrink",
    "GatherD": f"{_OPS}:gather_d",
    "Reshape": f"{_ARR}:reshape", "Flatten": f"{_ARR}:flatten", "Transpose": f"{_ARR}:transpose",
    "ExpandDims": f"{_ARR}:expand_dims", "Squeeze": f"{_ARR}:squeeze",
    "Concat": f"{_ARR}:concat", "Cast": f"{_ARR}:cast", "Gather": f"{_ARR}:gather",
    "StridedSlice": f"{_ARR}:strided_slice", "Slice": f"{_ARR}:slice_", "Tile": f"{_ARR}:tile",
    "BroadcastTo": f"{_ARR}:broadcast_to", "Pad": f"{_ARR}:pad", "SplitV": f"{_ARR}:split_v",
    "Split": f"{_ARR}:split", "Dropout": f"{_ARR}:dropout",
}
