# ruff: noqa: F401 -- a setup imports the names its examples use
"""What docs/plugins.md's kernel override assumes: a BLAS matmul kernel of the plugin's own."""

import numpy as np

from ms_tensor import dtype as mstype
from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView

FLOATS = mstype.float_types


def matmul_blas(x, y, transpose_a=False, transpose_b=False):
    """MatMul through numpy's BLAS."""
    return np.matmul(x.T if transpose_a else x, y.T if transpose_b else y)
