"""Elementwise arithmetic: Add, Sub, Mul, Div, Neg, ... with broadcasting and promotion."""

from __future__ import annotations

import numpy as np

from ms_ops.defs._grad_util import grad_for, shape_of, sum_to
from ms_ops.dispatch import binary_method, unary_method
from ms_ops.infer import elementwise
from ms_ops.opdef import ALL, NUMBERS, Arg, OpDef

_XY = (Arg("x"), Arg("y"))

Add = OpDef("Add", _XY, infer=elementwise(), promote="common",
            doc="x + y, elementwise, with broadcasting.")
Sub = OpDef("Sub", _XY, infer=elementwise(NUMBERS), promote="common",
            doc="x - y, elementwise, with broadcasting.")
Mul = OpDef("Mul", _XY, infer=elementwise(), promote="common",
            doc="x * y, elementwise, with broadcasting.")
Div = OpDef("Div", _XY, infer=elementwise(), promote="float",
            doc="x / y, elementwise; integer inputs give float32 (true division).")
Neg = OpDef("Neg", (Arg("x"),), infer=elementwise(NUMBERS), promote="common",
            doc="-x, elementwise.")


def add_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(dout, shape_of(x))), grad_for(y, sum_to(dout, shape_of(y))))


def sub_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(dout, shape_of(x))),
            grad_for(y, sum_to(Neg(dout), shape_of(y))))


def mul_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(Mul(dout, y), shape_of(x))),
            grad_for(y, sum_to(Mul(dout, x), shape_of(y))))


def div_bprop(x, y, out, dout):
    dx = Div(dout, y)
    return (grad_for(x, sum_to(dx, shape_of(x))),
            grad_for(y, sum_to(Neg(Mul(dx, out)), shape_of(y))))


def neg_bprop(x, out, dout):
    return (Neg(dout),)


def _true_divide(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(x, y)


PRIMITIVES = (Add, Sub, Mul, Div, Neg)
CPU_KERNELS = {
    Add: (np.add, ALL),
    Sub: (np.subtract, NUMBERS),
    Mul: (np.multiply, ALL),
    Div: (_true_divide, NUMBERS),
    Neg: (np.negative, NUMBERS),
}
BPROPS = {Add: add_bprop, Sub: sub_bprop, Mul: mul_bprop, Div: div_bprop, Neg: neg_bprop}


_add, _radd = binary_method(Add), binary_method(Add, reflected=True)
_sub, _rsub = binary_method(Sub), binary_method(Sub, reflected=True)
_mul, _rmul = binary_method(Mul), binary_method(Mul, reflected=True)
_div, _rdiv = binary_method(Div), binary_method(Div, reflected=True)
_neg = unary_method(Neg)


FUNCTIONS = {"add": Add, "sub": Sub, "subtract": Sub, "mul": Mul, "multiply": Mul,
             "div": Div, "divide": Div, "true_divide": Div, "neg": Neg, "negative": Neg}
TENSOR_METHODS = {
    "__add__": _add, "__radd__": _radd, "__sub__": _sub, "__rsub__": _rsub,
    "__mul__": _mul, "__rmul__": _rmul, "__truediv__": _div, "__rtruediv__": _rdiv,
    "__neg__": _neg, "add": _add, "sub": _sub, "mul": _mul, "div": _div, "neg": _neg,
}
