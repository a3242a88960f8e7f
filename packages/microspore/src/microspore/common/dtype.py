"""``mindspore.common.dtype`` (``mstype``): the dtypes and conversions to numpy and Python types.

>>> from microspore.common import dtype as mstype
>>> mstype.dtype_to_nptype(mstype.float32)
<class 'numpy.float32'>
"""

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
    to_numpy,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
)

__all__ = [
    "DType", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "float_", "int_",
    "uint", "half", "single", "double", "dtype_to_nptype", "pytype_to_dtype",
]

_PYTYPES = {bool: bool_, int: int64, float: float64, complex: complex128}


def dtype_to_nptype(type_):
    """The numpy scalar type of a microspore dtype (``float32`` -> ``numpy.float32``)."""
    return to_numpy(type_).type


def pytype_to_dtype(obj):
    """The dtype of a Python type (``bool``, ``int``, ``float``, ``complex``) or a dtype itself."""
    if isinstance(obj, DType):
        return obj
    try:
        return _PYTYPES[obj]
    except (KeyError, TypeError):
        raise NotImplementedError(f"pytype_to_dtype: no dtype for {obj!r}; expected one of "
                                  "bool, int, float, complex or a dtype") from None
