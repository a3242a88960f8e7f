"""The matrix exponential (``ops.matrix_exp``, ``ops.MatrixExp``), ``scipy.linalg.expm``'s
scaling-and-squaring Pade kernel.

Its gradient is the Frechet derivative at A.T in the direction of the incoming gradient,
read from the upper-right block of expm([[A.T, G], [0, A.T]]) (Mathias, 1996): one more
MatrixExp, so the rule is written with operators and differentiates again.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.array_create import ZerosLike
from ms_ops.defs.array_join import concat
from ms_ops.defs.array_slice import Slice
from ms_ops.infer import check_dtype
from ms_ops.opdef import Arg, OpDef, TensorSpec
from ms_ops_scipy._scipy import linalg
from ms_tensor import dtype as mstype


def _matrix_exp_infer(x):
    check_dtype("input", x, mstype.float_types)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"MatrixExp: input must be square matrices (..., N, N), got shape "
                         f"{x.shape}")
    return TensorSpec(x.shape, x.dtype)


MatrixExp = OpDef("MatrixExp", (Arg("input"),), infer=_matrix_exp_infer,
                  functional="matrix_exp", methods="matrix_exp",
                  doc="exp(A) = sum A^k / k! of each square matrix of the last two axes.")


@MatrixExp.kernel("CPU", dtypes=mstype.float_types)
def matrix_exp_cpu(x):
    flat = x.reshape((-1,) + x.shape[-2:]).astype(np.float64 if x.dtype != np.float32
                                                   else np.float32)
    out = np.stack([linalg("expm")(m) for m in flat]) if flat.shape[0] else flat
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _t(x):
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return array.Transpose(x, tuple(perm))


@MatrixExp.bprop
def matrix_exp_bprop(x, out, dout):
    n = x.shape[-1]
    at = _t(x)
    top = concat((at, dout), -1)
    bottom = concat((ZerosLike(at), at), -1)
    block = MatrixExp(concat((top, bottom), -2))
    begin = (0,) * (x.ndim - 2) + (0, n)
    return (Slice(block, begin, tuple(x.shape)),)


@MatrixExp.samples
def _matrix_exp(rng):
    yield (rng.standard_normal((3, 3)) * 0.5,), {}
    yield (rng.standard_normal((2, 2, 2)),), {}
