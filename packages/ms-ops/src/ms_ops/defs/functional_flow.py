"""MindSpore's functional loops and debugging operators: ``WhileLoop``, ``ForiLoop``,
``Scan``, ``Print``, ``Assert``, ``tensordump``/``TensorDump``, ``FloatStatus``,
``add_flags``, and ``cond`` (a matrix's condition number).

The loops run their body as Python calls of operators, so they give the values of the
equivalent Python loop, their gradients come from the operators inside, and a captured
graph unrolls them (MindSpore's ``unroll=True``).
"""

from __future__ import annotations

import numpy as np

from ms_ops.opdef import functional, primitive_class
from ms_tensor.tensor import Tensor


def _truth(value, who):
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"{who}: the condition must be a single value, got shape "
                             f"{value.shape}")
        return bool(value.asnumpy().reshape(()))
    return bool(value)


def _while_loop(cond_func, loop_func, init_val):
    val = init_val
    while _truth(cond_func(val), "WhileLoop"):
        val = loop_func(val)
    return val


def _fori_loop(lower, upper, loop_func, init_val, unroll=True):
    lo, hi = (int(v.asnumpy()) if isinstance(v, Tensor) else int(v) for v in (lower, upper))
    val = init_val
    for i in range(lo, hi):
        val = loop_func(i, val)
    return val


def _scan(loop_func, init, xs, length=None, unroll=True):
    from ms_ops.defs.array_join import stack

    n = length if xs is None else (len(xs) if isinstance(xs, (list, tuple)) else xs.shape[0])
    if n is None:
        raise ValueError("Scan: give xs or length")
    carry, ys = init, []
    for k in range(n):
        carry, y = loop_func(carry, None if xs is None else xs[k])
        ys.append(y)
    if ys and all(isinstance(y, Tensor) for y in ys):
        return carry, stack(tuple(ys), 0)
    return carry, ys


WhileLoop = primitive_class("WhileLoop", _while_loop)
ForiLoop = primitive_class("ForiLoop", _fori_loop)
Scan = primitive_class("Scan", _scan)


def _print(*inputs):
    parts = []
    for v in inputs:
        if isinstance(v, Tensor):
            parts.append(f"Tensor(shape={list(v.shape)}, dtype={v.dtype}, value=\n"
                         f"{np.array2string(v.asnumpy())})")
        else:
            parts.append(str(v))
    print("\n".join(parts), flush=True)


Print = primitive_class("Print", _print)


def _assert(condition, input_data, summarize=3):
    ok = condition.asnumpy().all() if isinstance(condition, Tensor) else bool(condition)
    if not ok:
        shown = [np.asarray(d.asnumpy() if isinstance(d, Tensor) else d).reshape(-1)[:summarize]
                 for d in (input_data if isinstance(input_data, (tuple, list)) else [input_data])]
        raise AssertionError(f"Assert failed; first {summarize} values of the data: {shown}")


Assert = primitive_class("Assert", lambda condition, input_data, summarize=3: _assert(
    condition, input_data, summarize), ("summarize",))


@functional("tensordump")
def tensordump(file_name, tensor, mode="out"):
    """``ops.tensordump``: ``tensor`` saved to ``file_name`` as a .npy file."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"tensordump: expected a Tensor, got {type(tensor).__name__}")
    if mode not in ("out", "in", "all"):
        raise ValueError(f"tensordump: mode must be 'out', 'in' or 'all', got {mode!r}")
    path = str(file_name)
    np.save(path if path.endswith(".npy") else path + ".npy", tensor.asnumpy())


TensorDump = primitive_class("TensorDump", lambda file, input_x, input_output="out":
                             tensordump(file, input_x, input_output), ("input_output",))


def _float_status(x):
    bad = not np.all(np.isfinite(x.asnumpy()))
    return Tensor(np.array([1.0 if bad else 0.0], np.float32))


FloatStatus = primitive_class("FloatStatus", _float_status)


@functional("add_flags")
def add_flags(fn=None, **flags):
    """``ops.add_flags``: a decorator setting ``flags`` as attributes of the function."""
    def mark(f):
        for key, value in flags.items():
            setattr(f, key, value)
        return f
    return mark if fn is None else mark(fn)


@functional("cond")
def cond(A, p=None):
    """``ops.cond``: the condition number of matrices, norm(A, p) * norm(inv(A), p)
    (``p`` None or 2: the ratio of the largest to the smallest singular value)."""
    from ms_ops.defs.arithmetic import Div, Mul
    from ms_ops.defs.linalg_decomp import Svd
    from ms_ops.defs.linalg_extra import inverse
    from ms_ops.defs.norm import norm
    from ms_ops.defs.reduction import ReduceMax, ReduceMin

    if p is None or p == 2 or p == -2:
        s = Svd(A)[0]
        big, small = ReduceMax(s, (-1,)), ReduceMin(s, (-1,))
        return Div(big, small) if p != -2 else Div(small, big)
    return Mul(norm(A, p, (-2, -1)), norm(inverse(A), p, (-2, -1)))
