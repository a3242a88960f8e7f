"""Linear algebra beyond products: MatrixInverse, MatrixDeterminant and
LogMatrixDeterminant (batched, over the last two axes), and the functional forms built on
them and on MatMul/BatchMatMul: ``mm``, ``mv``, ``outer``, ``inner``, ``dot``, ``vecdot``,
``addmm``/``addmv``/``addr``/``baddbmm``/``addbmm``, ``kron``, ``cross``, ``trace``,
``det``, ``inverse``, ``matrix_power``, ``slogdet``, ``logdet``.

Gradients: d(inv A) = -A^-T dout A^-T, d(det A) = dout det(A) A^-T, d(log|det A|) =
dout A^-T, all written with operators, so they differentiate again.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array, math_unary
from ms_ops.defs.arithmetic import Add, Mul, Sub
from ms_ops.defs.array_join import concat
from ms_ops.defs.array_slice import Slice
from ms_ops.defs.linalg import BatchMatMul, MatMul
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import check_dtype, normalize_axis
from ms_ops.opdef import FLOATS, Arg, OpDef, TensorSpec, functional


def _square(name: str, x):
    check_dtype("input", x, FLOATS)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name}: input must be square matrices (..., n, n), got shape "
                         f"{x.shape}")


def _t(x):
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return array.Transpose(x, tuple(perm))


def _invertible(rng, shape):
    n = shape[-1]
    return rng.standard_normal(shape) + n * np.eye(n)


def _matrix_infer(name):
    def infer(x):
        _square(name, x)
        return TensorSpec(x.shape, x.dtype)
    return infer


MatrixInverse = OpDef("MatrixInverse", (Arg("x"),), infer=_matrix_infer("MatrixInverse"),
                      doc="The inverse of each square matrix of the last two axes.")


@MatrixInverse.kernel("CPU", dtypes=FLOATS)
def matrix_inverse_cpu(x):
    return np.linalg.inv(x)


@MatrixInverse.bprop
def matrix_inverse_bprop(x, out, dout):
    inv_t = _t(out)
    return (Mul(BatchMatMul(BatchMatMul(inv_t, dout), inv_t), -1.0),)


@MatrixInverse.samples
def _inverse(rng):
    yield (_invertible(rng, (3, 3)),), {}
    yield (_invertible(rng, (2, 2, 2)),), {}


def _det_infer(x):
    _square("MatrixDeterminant", x)
    return TensorSpec(x.shape[:-2], x.dtype)


MatrixDeterminant = OpDef("MatrixDeterminant", (Arg("x"),), infer=_det_infer,
                          doc="The determinant of each square matrix of the last two axes.")


@MatrixDeterminant.kernel("CPU", dtypes=FLOATS)
def matrix_determinant_cpu(x):
    return np.asarray(np.linalg.det(x), x.dtype)


@MatrixDeterminant.bprop
def matrix_determinant_bprop(x, out, dout):
    scale = array.ExpandDims(array.ExpandDims(Mul(dout, out), -1), -1)
    return (Mul(scale, _t(MatrixInverse(x))),)


MatrixDeterminant.samples(_inverse)


def _log_det_infer(x):
    _square("LogMatrixDeterminant", x)
    return TensorSpec(x.shape[:-2], x.dtype), TensorSpec(x.shape[:-2], x.dtype)


LogMatrixDeterminant = OpDef("LogMatrixDeterminant", (Arg("x"),), infer=_log_det_infer,
                             doc="``(sign, log|det|)`` of each square matrix: the log of "
                                 "the determinant without its overflow.")


@LogMatrixDeterminant.kernel("CPU", dtypes=FLOATS)
def log_matrix_determinant_cpu(x):
    sign, logabs = np.linalg.slogdet(x)
    return np.asarray(sign, x.dtype), np.asarray(logabs, x.dtype)


@LogMatrixDeterminant.bprop
def log_matrix_determinant_bprop(x, out, dout):
    if dout[1] is None:
        return (None,)
    scale = array.ExpandDims(array.ExpandDims(dout[1], -1), -1)
    return (Mul(scale, _t(MatrixInverse(x))),)


LogMatrixDeterminant.samples(_inverse)


@functional("inverse", "matrix_inverse", methods="inverse")
def inverse(input):
    """``ops.inverse``: the inverse of each square matrix."""
    return MatrixInverse(input)


@functional("det", "matrix_determinant", methods=("det", "matrix_determinant"))
def det(input):
    """``ops.det``: the determinant of each square matrix.

    >>> float(ops.det(Tensor([[2.0, 1.0], [1.0, 3.0]])))
    5.0
    """
    return MatrixDeterminant(input)


@functional("slogdet", "log_matrix_determinant",
            methods=("slogdet", "log_matrix_determinant"))
def slogdet(input):
    """``ops.slogdet``: ``(sign, log|det|)`` of each square matrix."""
    return LogMatrixDeterminant(input)


@functional("logdet", methods="logdet")
def logdet(input):
    """``ops.logdet``: log(det), NaN where the determinant is negative."""
    sign, logabs = LogMatrixDeterminant(input)
    return Add(logabs, math_unary.Log(sign))


def _rank(name: str, x, ndim: int):
    if x.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-d tensor, got shape {x.shape}")


@functional("mm", methods="mm")
def mm(input, mat2):
    """``ops.mm``: the product of two matrices."""
    _rank("mm", input, 2)
    _rank("mm", mat2, 2)
    return MatMul(input, mat2)


@functional("mv")
def mv(mat, vec):
    """``ops.mv``: matrix times vector."""
    _rank("mv", mat, 2)
    _rank("mv", vec, 1)
    return array.Reshape(MatMul(mat, array.Reshape(vec, (-1, 1))), (-1,))


@functional("outer", "ger", methods=("outer", "ger"))
def outer(input, vec2):
    """``ops.outer``: the outer product of two vectors."""
    _rank("outer", input, 1)
    _rank("outer", vec2, 1)
    return Mul(array.Reshape(input, (-1, 1)), array.Reshape(vec2, (1, -1)))


@functional("inner", methods="inner")
def inner(input, other):
    """``ops.inner``: sums over the last axes of both (scalars multiply)."""
    if input.ndim == 0 or other.ndim == 0:
        return Mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise ValueError(f"inner: last axes differ: {input.shape} and {other.shape}")
    a = array.Reshape(input, (-1, input.shape[-1]))
    b = array.Reshape(other, (-1, other.shape[-1]))
    return array.Reshape(MatMul(a, b, transpose_b=True),
                         tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


@functional("dot", methods="dot")
def dot(input, other):
    """``ops.dot``: the last axis of ``input`` against the second-to-last of ``other``
    (the last when it is 1-d), as numpy's dot."""
    if other.ndim == 1:
        return inner(input, other)
    moved = list(range(other.ndim))
    moved.insert(0, moved.pop(-2))
    b = array.Reshape(array.Transpose(other, tuple(moved)), (other.shape[-2], -1))
    out = MatMul(array.Reshape(input, (-1, input.shape[-1])), b)
    rest = tuple(other.shape[:-2]) + (other.shape[-1],)
    return array.Reshape(out, tuple(input.shape[:-1]) + rest)


@functional("vecdot")
def vecdot(x, y, *, axis=-1):
    """``ops.vecdot``: the dot product along ``axis`` (broadcasting)."""
    return ReduceSum(Mul(x, y), axis)


def _scaled(input, product, beta, alpha):
    out = product if alpha == 1 else Mul(product, alpha)
    if beta == 0:
        return out
    return Add(input if beta == 1 else Mul(input, beta), out)


@functional("addmm", methods="addmm")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``ops.addmm``: beta * input + alpha * (mat1 @ mat2)."""
    return _scaled(input, mm(mat1, mat2), beta, alpha)


@functional("addmv", methods="addmv")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``ops.addmv``: beta * input + alpha * (mat @ vec)."""
    return _scaled(input, mv(mat, vec), beta, alpha)


@functional("addr", methods="addr")
def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """``ops.addr``: beta * x + alpha * outer(vec1, vec2)."""
    return _scaled(x, outer(vec1, vec2), beta, alpha)


@functional("baddbmm", methods="baddbmm")
def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """``ops.baddbmm``: beta * input + alpha * (batch1 @ batch2), batch by batch."""
    return _scaled(input, BatchMatMul(batch1, batch2), beta, alpha)


@functional("addbmm", methods="addbmm")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``ops.addbmm``: beta * input + alpha * the sum over the batch of batch1 @ batch2."""
    return _scaled(input, ReduceSum(BatchMatMul(batch1, batch2), 0), beta, alpha)


@functional("matrix_power", methods="matrix_power")
def matrix_power(input, n):
    """``ops.matrix_power``: the n-th power of each square matrix (negative: of the
    inverse; 0: the identity)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"matrix_power: n must be an int, got {n!r}")
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise ValueError(f"matrix_power: input must be square matrices, got {input.shape}")
    if n == 0:
        from ms_ops.defs.array_create import eye

        ident = eye(input.shape[-1], input.shape[-1], input.dtype)
        return array.BroadcastTo(ident, shape=tuple(input.shape))
    base = MatrixInverse(input) if n < 0 else input
    out = base
    for _ in range(abs(n) - 1):
        out = BatchMatMul(out, base)
    return out


@functional("kron")
def kron(input, other):
    """``ops.kron``: the Kronecker product (the shorter shape padded with leading 1s)."""
    nd = max(input.ndim, other.ndim)
    a_shape = (1,) * (nd - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (nd - other.ndim) + tuple(other.shape)
    a = array.Reshape(input, tuple(d for s in a_shape for d in (s, 1)))
    b = array.Reshape(other, tuple(d for s in b_shape for d in (1, s)))
    return array.Reshape(Mul(a, b), tuple(p * q for p, q in zip(a_shape, b_shape)))


@functional("cross", methods="cross")
def cross(input, other, dim=None):
    """``ops.cross``: the cross product along ``dim`` (the first axis of size 3 if None)."""
    if dim is None:
        dims = [i for i, n in enumerate(input.shape) if n == 3]
        if not dims:
            raise ValueError(f"cross: no axis of size 3 in shape {input.shape}")
        dim = dims[0]
    d = normalize_axis(dim, input.ndim, "dim")
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise ValueError(f"cross: axis {d} must have size 3 in both, got {input.shape} "
                         f"and {other.shape}")

    def part(t, i):
        size = list(t.shape)
        size[d] = 1
        return Slice(t, tuple(i if k == d else 0 for k in range(t.ndim)), tuple(size))

    a, b = [part(input, i) for i in range(3)], [part(other, i) for i in range(3)]
    comps = [Sub(Mul(a[(i + 1) % 3], b[(i + 2) % 3]), Mul(a[(i + 2) % 3], b[(i + 1) % 3]))
             for i in range(3)]
    return concat(tuple(comps), d)


@functional("trace", methods="trace")
def trace(input):
    """``ops.trace``: the sum of a matrix's main diagonal."""
    _rank("trace", input, 2)
    from ms_ops.defs.array_diag import diagonal

    return ReduceSum(diagonal(input))
