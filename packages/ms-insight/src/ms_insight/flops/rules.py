"""FLOPs of one kernel call, from its arrays: MindSpore's set (``MatMul``,
``BatchMatMul``, ``Conv2D`` forward and backward; here also ``Dense``, whose product is
one MatMul), a multiply-add counted as two operations. Other operators count nothing,
as in MindSpore's collector."""

from __future__ import annotations

import numpy as np

__all__ = ["flops", "COUNTED"]


def _size(a) -> int:
    return int(np.prod(np.shape(a), dtype=np.int64))


def _matmul(args, kwargs, result) -> int:
    a = args[0]
    k = np.shape(a)[-2] if kwargs.get("transpose_a") or kwargs.get("adj_x") \
        else np.shape(a)[-1]
    return 2 * _size(result) * int(k)


def _dense(args, kwargs, result) -> int:
    return 2 * _size(result) * int(np.shape(args[0])[-1])


def _conv(args, kwargs, result) -> int:  # x, w: each output takes Cin/group*kh*kw products
    return 2 * _size(result) * _size(args[1]) // int(np.shape(args[1])[0])


def _conv_filter(args, kwargs, result) -> int:  # dout, x -> dw: each dout entry per weight
    return 2 * _size(args[0]) * _size(result) // int(np.shape(result)[0])


def _conv_input(args, kwargs, result) -> int:  # dout, w -> dx
    return 2 * _size(args[0]) * _size(args[1]) // int(np.shape(args[1])[0])


_RULES = {"MatMul": _matmul, "BatchMatMul": _matmul, "Dense": _dense, "Conv2D": _conv,
          "Conv2DBackpropFilter": _conv_filter, "Conv2DBackpropInput": _conv_input}
COUNTED = tuple(_RULES)


def flops(op: str, args, kwargs, result) -> int:
    """Floating-point operations of one call of ``op`` (0 for an uncounted operator).

    >>> a, b = np.ones((32, 10)), np.ones((10, 5))
    >>> flops("MatMul", (a, b), {}, a @ b)  # 2 * 32 * 5 * 10
    3200
    >>> x, w, y = np.ones((2, 3, 8, 8)), np.ones((4, 3, 3, 3)), np.ones((2, 4, 6, 6))
    >>> flops("Conv2D", (x, w), {}, y)  # 2 * (2*4*6*6 outputs) * (3*3*3 products each)
    15552
    """
    rule = _RULES.get(op)
    if rule is None:
        return 0
    if isinstance(result, tuple):
        result = result[0]
    return rule(args, kwargs, result)
