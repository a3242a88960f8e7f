"""The functional forms over the decompositions and solves: ``svd``, ``qr``,
``cholesky``/``cholesky_solve``/``cholesky_inverse``, ``matrix_solve``, ``pinv``,
``lstsq``, and Einsum; distances (``cdist``, ``pdist``, ``dist``), ``LpNorm``, ``renorm``,
``adjoint``, ``tensor_dot``, ``baddbmm_ext`` and class forms of existing functions.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array, comparison, math_unary
from ms_ops.defs.arithmetic import Abs, Add, Div, Mul, Pow, Sub
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.linalg import BatchMatMul
from ms_ops.defs.linalg_decomp import (
    Cholesky,
    MatrixSolve,
    MatrixTriangularSolve,
    Qr,
    Svd,
    _t,
)
from ms_ops.defs.linalg_extra import baddbmm, cross, matrix_power, outer, trace
from ms_ops.defs.reduction import ReduceMax, ReduceSum
from ms_ops.infer import check_dtype
from ms_ops.opdef import FLOATS, functional, primitive_class
from ms_tensor.tensor import Tensor


@functional("svd", methods="svd")
def svd(input, full_matrices=False, compute_uv=True):
    """``ops.svd``: (s, u, v) with input = u @ diag(s) @ v.T (only s when not
    ``compute_uv``); singular values descending."""
    s, u, v = Svd(input, full_matrices=full_matrices)
    return (s, u, v) if compute_uv else s


@functional("qr", methods="qr")
def qr(input, mode="reduced"):
    """``ops.qr``: (q, r) with input = q @ r; ``mode`` "reduced" or "complete"."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return Qr(input, full_matrices=mode == "complete")


@functional("cholesky", methods="cholesky")
def cholesky(input_x, upper=False):
    """``ops.cholesky``: the lower factor L with input_x = L @ L.T (upper: U.T @ U)."""
    return Cholesky(input_x, upper=upper)


@functional("cholesky_solve", methods="cholesky_solve")
def cholesky_solve(input, input2, upper=False):
    """``ops.cholesky_solve``: x with A @ x = input, A given by its Cholesky factor input2."""
    low = _t(input2) if upper else input2
    half = MatrixTriangularSolve(low, input, lower=True)
    return MatrixTriangularSolve(low, half, lower=True, adjoint=True)


@functional("cholesky_inverse", methods="cholesky_inverse")
def cholesky_inverse(input_x, upper=False):
    """``ops.cholesky_inverse``: inv(A) of A given by its Cholesky factor."""
    n = input_x.shape[-1]
    eye = array.BroadcastTo(Tensor(np.eye(n, dtype=input_x.dtype.np)), tuple(input_x.shape))
    return cholesky_solve(eye, input_x, upper)


CholeskySolve = primitive_class("CholeskySolve", cholesky_solve, ("upper",))
CholeskyInverse = primitive_class("CholeskyInverse", cholesky_inverse, ("upper",))


@functional("matrix_solve")
def matrix_solve(matrix, rhs, adjoint=False):
    """``ops.matrix_solve``: x with matrix @ x = rhs (matrix.T when ``adjoint``)."""
    return MatrixSolve(matrix, rhs, adjoint=adjoint)


@functional("pinv", methods="pinv")
def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """``ops.pinv``: the Moore-Penrose pseudo-inverse through the SVD; singular values
    below max(atol, rtol * largest) are dropped (rtol defaults to eps * max(M, N))."""
    check_dtype("x", x, FLOATS)
    s, u, v = Svd(x)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else \
            float(np.finfo(x.dtype.np).eps) * max(x.shape[-2:])
    cutoff = Mul(ReduceMax(s, (-1,), keep_dims=True), rtol)
    if atol is not None:
        cutoff = Select(comparison.Greater(cutoff, atol), cutoff, float(atol))
    keep = comparison.Greater(s, cutoff)
    safe = Select(keep, s, 1.0)
    inv_s = Select(keep, Div(1.0, safe), 0.0)
    return BatchMatMul(Mul(v, array.ExpandDims(inv_s, -2)), _t(u))


@functional("lstsq", methods="lstsq")
def lstsq(input, A):
    """``ops.lstsq``: x minimising ||input @ x - A|| (MindSpore's order: ``input`` is the
    full-rank coefficient matrix, ``A`` the right-hand side); a 1-D ``A`` gives a 1-D x."""
    b = array.ExpandDims(A, -1) if A.ndim == 1 else A
    x = BatchMatMul(pinv(input), b)
    return array.Squeeze(x, (-1,)) if A.ndim == 1 else x


def _lstsq_class(matrix, rhs, fast=True, l2_regularizer=0.0):
    if l2_regularizer:
        n = matrix.shape[-1]
        gram = Add(BatchMatMul(_t(matrix), matrix), Tensor(l2_regularizer * np.eye(
            n, dtype=matrix.dtype.np)))
        return MatrixSolve(gram, BatchMatMul(_t(matrix), rhs))
    return lstsq(matrix, rhs)


Lstsq = primitive_class("Lstsq", _lstsq_class, ("fast", "l2_regularizer"))


def _einsum_parse(equation: str, operands) -> tuple[list[list[str]], list[str]]:
    """Each operand's letters and the output's, ``...`` spelled out as upper-case letters."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: equation {equation!r} names {len(terms)} operands, got "
                         f"{len(operands)}")
    spare = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    ellipsis: list[str] = []
    letters = []
    for term, op in zip(terms, operands):
        if not term.replace("...", "").isalpha() and term.replace("...", ""):
            raise ValueError(f"einsum: subscripts must be letters, got {term!r}")
        named = term.replace("...", "")
        if "..." in term:
            n = op.ndim - len(named)
            while len(ellipsis) < n:
                ellipsis.insert(0, next(spare))
            head, _, tail = term.partition("...")
            term_letters = list(head) + ellipsis[len(ellipsis) - n:] + list(tail)
        else:
            term_letters = list(term)
        if len(term_letters) != op.ndim:
            raise ValueError(f"einsum: subscripts {term!r} name {len(term_letters)} axes, "
                             f"the operand has shape {op.shape}")
        letters.append(term_letters)
    if arrow:
        head, _, tail = rhs.partition("...")
        out = list(head) + (ellipsis if "..." in rhs else []) + list(tail)
    else:
        counts = [c for t in letters for c in t]
        out = ellipsis + sorted(c for c in set(counts) if c.islower() and counts.count(c) == 1)
    return letters, out


def _take_diagonals(x, letters):
    from ms_ops.defs.array_diag import diagonal

    letters = list(letters)
    while len(set(letters)) < len(letters):
        c = next(c for c in letters if letters.count(c) > 1)
        i = letters.index(c)
        j = letters.index(c, i + 1)
        x = diagonal(x, 0, i, j)
        letters = [v for k, v in enumerate(letters) if k not in (i, j)] + [c]
    return x, letters


def _contract(a, la, b, lb, keep):
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    a_only = [c for c in la if c not in lb]
    b_only = [c for c in lb if c not in la]
    size = dict(zip(la, a.shape)) | dict(zip(lb, b.shape))
    prod = lambda cs: int(np.prod([size[c] for c in cs]))  # noqa: E731
    a = array.Transpose(a, tuple(la.index(c) for c in batch + a_only + summed))
    b = array.Transpose(b, tuple(lb.index(c) for c in batch + summed + b_only))
    a = array.Reshape(a, (prod(batch), prod(a_only), prod(summed)))
    b = array.Reshape(b, (prod(batch), prod(summed), prod(b_only)))
    out = BatchMatMul(a, b)
    letters = batch + a_only + b_only
    return array.Reshape(out, tuple(size[c] for c in letters)), letters


@functional("einsum", "einsum_ext")
def einsum(equation, *operands):
    """``ops.einsum``: the Einstein summation ``equation`` over ``operands``, contracted
    pairwise left to right by matrix products (gradients through them)."""
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    letters, out = _einsum_parse(equation, operands)
    work = [_take_diagonals(op, ls) for op, ls in zip(operands, letters)]
    x, lx = work[0]
    for k, (y, ly) in enumerate(work[1:], start=1):
        later = set(out).union(*(set(w[1]) for w in work[k + 1:]))
        lone = [c for c in lx if c not in ly and c not in later]  # summed before the product
        if lone:
            x = ReduceSum(x, tuple(lx.index(c) for c in lone))
            lx = [c for c in lx if c not in lone]
        x, lx = _contract(x, lx, y, ly, later)
    extra = [c for c in lx if c not in out]
    if extra:
        x = ReduceSum(x, tuple(lx.index(c) for c in extra))
        lx = [c for c in lx if c not in extra]
    missing = [c for c in out if c not in lx]
    if missing:
        raise ValueError(f"einsum: output subscripts {missing} appear in no operand of "
                         f"{equation!r}")
    return array.Transpose(x, tuple(lx.index(c) for c in out)) if lx != out else x


Einsum = primitive_class("Einsum", lambda operands, equation: einsum(equation, *operands),
                         ("equation",))


def _p_norm(diff, p, axis):
    if p == 0:
        return ReduceSum(array.Cast(comparison.NotEqual(diff, 0), diff.dtype), axis)
    if p == float("inf"):
        return ReduceMax(Abs(diff), axis)
    if p == 2:
        return math_unary.Sqrt(ReduceSum(Mul(diff, diff), axis))
    if p == 1:
        return ReduceSum(Abs(diff), axis)
    return Pow(ReduceSum(Pow(Abs(diff), float(p)), axis), 1.0 / p)


@functional("cdist")
def cdist(x1, x2, p=2.0):
    """``ops.cdist``: the p-norm distance between each row of x1 and each row of x2
    (batched over leading axes)."""
    if p < 0:
        raise ValueError(f"cdist: p must be non-negative, got {p}")
    if x1.shape[-1] != x2.shape[-1]:
        raise ValueError(f"cdist: x1 shape {x1.shape} and x2 shape {x2.shape} must have the "
                         "same last axis")
    diff = Sub(array.ExpandDims(x1, -2), array.ExpandDims(x2, -3))
    return _p_norm(diff, p, (-1,))


@functional("pdist")
def pdist(input, p=2.0):
    """``ops.pdist``: the p-norm distances between every pair of rows i < j, flattened."""
    n = input.shape[-2]
    full = cdist(input, input, p)
    upper = np.triu(np.ones((n, n), bool), 1)
    flat = array.Reshape(full, tuple(full.shape[:-2]) + (n * n,))
    picks = Tensor(np.flatnonzero(upper).astype(np.int64))
    from ms_ops.defs.indexing import Gather

    return Gather(flat, picks, flat.ndim - 1)


Cdist = primitive_class("Cdist", cdist, ("p",))
Pdist = primitive_class("Pdist", pdist, ("p",))


@functional("dist")
def dist(input, other, p=2):
    """``ops.dist``: the p-norm of input - other over all elements."""
    diff = Sub(input, other)
    return _p_norm(diff, p, tuple(range(diff.ndim)))


def _lp_norm(input, axis, p=2, keep_dims=False, epsilon=1e-12):
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    out = _p_norm(input, p, axes)
    if keep_dims:
        for a in sorted(x % input.ndim for x in axes):
            out = array.ExpandDims(out, a)
    return out


LpNorm = primitive_class("LpNorm", _lp_norm, ("axis", "p", "keep_dims", "epsilon"))


@functional("renorm", methods="renorm")
def renorm(input, p, axis, maxnorm):
    """``ops.renorm``: each slice along ``axis`` scaled down so its p-norm is at most
    ``maxnorm`` (slices already within it are kept)."""
    axis %= input.ndim
    others = tuple(a for a in range(input.ndim) if a != axis)
    norms = _p_norm(input, p, others)
    shape = [1] * input.ndim
    shape[axis] = input.shape[axis]
    norms = array.Reshape(norms, tuple(shape))
    scale = Select(comparison.Greater(norms, maxnorm), Div(maxnorm, Add(norms, 1e-7)), 1.0)
    return Mul(input, scale)


Renorm = primitive_class("Renorm", lambda input, p, dim, maxnorm: renorm(input, p, dim, maxnorm),
                         ("p", "dim", "maxnorm"))


@functional("adjoint", methods="adjoint")
def adjoint(x):
    """``ops.adjoint``: the conjugate transpose of the last two axes (real: the transpose)."""
    return _t(x)


@functional("tensor_dot")
def tensor_dot(x1, x2, axes):
    """``ops.tensor_dot``: the sum of products over ``axes`` (an int: the last n of x1 and
    first n of x2; or a pair of axis lists)."""
    if isinstance(axes, int):
        a_axes = list(range(x1.ndim - axes, x1.ndim))
        b_axes = list(range(axes))
    else:
        a_axes, b_axes = ([a] if isinstance(a, int) else list(a) for a in axes)
    a_axes = [a % x1.ndim for a in a_axes]
    b_axes = [b % x2.ndim for b in b_axes]
    la = [chr(ord("a") + i) for i in range(x1.ndim)]
    lb = [chr(ord("n") + i) for i in range(x2.ndim)]
    for i, j in zip(a_axes, b_axes):
        lb[j] = la[i]
    out = [c for c in la if la.index(c) not in a_axes]
    out += [c for k, c in enumerate(lb) if k not in b_axes]
    return einsum(f"{''.join(la)},{''.join(lb)}->{''.join(out)}", x1, x2)


@functional("baddbmm_ext")
def baddbmm_ext(input, batch1, batch2, *, beta=1, alpha=1):
    """``ops.baddbmm_ext``: beta * input + alpha * batch1 @ batch2."""
    return baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


Ger = primitive_class("Ger", outer)
Trace = primitive_class("Trace", trace)
Cross = primitive_class("Cross", lambda input, other, dim=None: cross(
    input, other, None if dim == -65530 else dim), ("dim",))
MatrixPower = primitive_class("MatrixPower", lambda x, n: matrix_power(x, n), ("n",))
