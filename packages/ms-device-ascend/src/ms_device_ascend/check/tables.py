"""What the check knows about Ascend: operator placement, dtypes and chips' memory.

The tables are curated from MindSpore's operator documentation (the Ascend column) and
CANN's AI Core datatype rules; an operator the tables do not name is reported as
assumed to have an AI Core kernel, never as verified.
"""

from __future__ import annotations

__all__ = ["CUBE_OPS", "AICPU_OPS", "CHIPS_GIB", "FLOAT64", "INT64"]

# Matrix operators: the AI Core's Cube unit (float16 operands, int8 for quantized).
CUBE_OPS = frozenset({"MatMul", "BatchMatMul", "Dense", "Conv2D", "Conv2DBackpropInput",
                      "Conv2DBackpropFilter"})
# Operators whose Ascend kernel is an AI CPU kernel (random sampling and shuffles run on
# the AI CPU in MindSpore's Ascend backend): slow, and a host-device round trip each.
AICPU_OPS = frozenset({"StandardNormal", "UniformReal", "UniformInt", "Multinomial",
                       "RandomCategorical", "RandomShuffle", "RandpermV2", "Bernoulli"})
# HBM per device, GiB (vendors' data sheets).
CHIPS_GIB = {"910A": 32, "910B": 64, "910B4": 32, "310P": 24, "310": 8}
FLOAT64 = "float64"
INT64 = "int64"
