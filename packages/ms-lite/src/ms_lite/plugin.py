"""The hookimpls that register ms-lite: its lite operators (fused and int8 forms, kind
``"lite_op"``), its converter passes (stage ``"lite"``) and ``microspore lite``.

Values are ``"module:attr"`` strings: nothing here imports the kernels or the converter
until a model needs them.
"""

from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView

# MindSpore Lite's names for the fused and quantized forms the converter writes.
LITE_OPS = {
    "Conv2DFusion": "ms_lite.kernels.fused:CONV2D_FUSION",
    "Conv2DPoolFusion": "ms_lite.kernels.fused:CONV2D_POOL_FUSION",
    "FullConnection": "ms_lite.kernels.fused:FULL_CONNECTION",
    "QuantDTypeCast": "ms_lite.kernels.quantized:QUANT_DTYPE_CAST",
    "QuantConv2D": "ms_lite.kernels.quantized:QUANT_CONV2D",
    "QuantFullConnection": "ms_lite.kernels.quantized:QUANT_FULL_CONNECTION",
    "QuantMaxPool": "ms_lite.kernels.quantized:QUANT_MAX_POOL",
    "QuantReLU": "ms_lite.kernels.quantized:QUANT_RELU",
    "QuantAdd": "ms_lite.kernels.quantized_more:QUANT_ADD",
    "QuantMul": "ms_lite.kernels.quantized_more:QUANT_MUL",
    "QuantConcat": "ms_lite.kernels.quantized_more:QUANT_CONCAT",
    "QuantAvgPool": "ms_lite.kernels.quantized_more:QUANT_AVG_POOL",
}

# Run in this order by the converter (ms_lite.converter.passes has one module each).
PASSES = (
    ("remove_identity", "ms_lite.converter.passes.identity:remove_identity"),
    ("fold_constants", "ms_lite.converter.passes.constant_fold:fold_constants"),
    ("fuse_bias", "ms_lite.converter.passes.bias:fuse_bias"),
    ("fold_conv_bn", "ms_lite.converter.passes.conv_bn:fold_conv_bn"),
    ("fuse_activation", "ms_lite.converter.passes.activation:fuse_activation"),
    ("choose_layout", "ms_lite.converter.passes.layout:choose_layout"),
)
# Run after the precision changes (float32 kernels only: a quantized convolution and its
# pooling stay two int8 nodes).
FINAL_PASSES = (
    ("fuse_conv_pool", "ms_lite.converter.passes.conv_pool:fuse_conv_pool"),
)


@hookimpl
def ms_register_passes(registry: RegistryView) -> None:
    for name, fn in PASSES:
        registry.add_pass(name, fn, stage="lite")
    for name, fn in FINAL_PASSES:
        registry.add_pass(name, fn, stage="lite-final")


@hookimpl
def ms_register_cli_commands(registry: RegistryView) -> None:
    registry.add_cli_command("lite", "ms_lite.cli:main",
                             help="MindSpore Lite's tools: lite convert (converter_lite)")


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    for name, value in LITE_OPS.items():
        registry.add("lite_op", name, value)
