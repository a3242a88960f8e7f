"""ms-tensor: Tensor, Parameter, dtypes, context and the plugin registry of microspore.

Importing it loads no plugins and no compiled extensions; the registry loads on the
first operator call.
"""

from ms_tensor import dtype
from ms_tensor.context import (
    GRAPH_MODE,
    PYNATIVE_MODE,
    context,
    get_context,
    reset_context,
    set_context,
)
from ms_tensor.dtype import (
    DType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    float_,
    half,
    int8,
    int16,
    int32,
    int64,
    int_,
    single,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ms_tensor.parameter import Parameter, ParameterTuple
from ms_tensor.tensor import Tensor, is_tensor, wrap

__version__ = "0.1.0"

__all__ = [
    "Tensor", "Parameter", "ParameterTuple", "DType", "dtype", "is_tensor", "wrap",
    "GRAPH_MODE", "PYNATIVE_MODE", "context", "get_context", "set_context", "reset_context",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "float_", "int_", "uint", "half", "single", "double",
]
