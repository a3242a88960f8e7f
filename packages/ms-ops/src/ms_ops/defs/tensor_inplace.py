"""The in-place Tensor methods (``x.add_(y)``, ``x.zero_()``, ``x.uniform_()``...).

Each computes its result with the out-of-place operator and rebinds the tensor to it, as
``__setitem__`` does: the tensor keeps its identity (a Parameter stays the same object),
the tape sees the write as a new value of the tensor, and a trace records the operator,
so a compiled graph replays the write on every call. The result is cast back to the
tensor's dtype, as an in-place write cannot change it.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array, math_unary
from ms_ops.defs.activation import Tanh
from ms_ops.defs.arithmetic import Add, FloorDiv, Mul, Sign, Sub
from ms_ops.defs.array_create import Fill, ZerosLike
from ms_ops.opdef import functional
from ms_tensor.tensor import Tensor, array_of, node_of, set_array, set_node, wrap


def _rebind(self, compute):
    old = wrap(array_of(self))
    set_node(old, node_of(self))
    out = compute(old)
    if out.dtype != self.dtype:
        out = array.Cast(out, self.dtype)
    if tuple(out.shape) != tuple(self.shape):
        raise ValueError(f"in-place result shape {out.shape} does not fit the tensor's shape "
                         f"{self.shape}")
    set_array(self, array_of(out))
    set_node(self, node_of(out))
    return self


# the in-place forms MindSpore's ops namespace also has (``ops.clamp_(x, 0, 1)``)
_IN_OPS = {"bernoulli_", "clamp_", "erfinv_", "exponential_", "normal_", "random_", "tanh_",
           "uniform_", "zero_"}


def _method(name: str, compute, doc: str):
    def method(self, *args, **kwargs):
        return _rebind(self, lambda old: compute(old, *args, **kwargs))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    method.__module__ = __name__
    return functional(*((name,) if name in _IN_OPS else ()), methods=name)(method)


def _ops():
    import ms_ops

    return ms_ops


def _scaled(other, alpha):
    return other if alpha == 1 else Mul(other, alpha)


add_ = _method("add_", lambda x, other, *, alpha=1: Add(x, _scaled(other, alpha)),
               "``x.add_(other, alpha=1)``: x += alpha * other.")
sub_ = _method("sub_", lambda x, other, *, alpha=1: Sub(x, _scaled(other, alpha)),
               "``x.sub_(other, alpha=1)``: x -= alpha * other.")
mul_ = _method("mul_", lambda x, other: Mul(x, other), "``x.mul_(other)``: x *= other.")
div_ = _method("div_", lambda x, other, *, rounding_mode=None: _ops().div(
    x, other, rounding_mode=rounding_mode), "``x.div_(other, rounding_mode=None)``: x /= other.")
floor_divide_ = _method("floor_divide_", lambda x, other: FloorDiv(x, other),
                        "``x.floor_divide_(other)``: x //= other.")
remainder_ = _method("remainder_", lambda x, other: _ops().remainder(x, other),
                     "``x.remainder_(other)``: x = x mod other (other's sign).")
addmm_ = _method("addmm_", lambda x, mat1, mat2, *, beta=1, alpha=1: _ops().addmm(
    x, mat1, mat2, beta=beta, alpha=alpha), "``x.addmm_(m1, m2)``: x = beta x + alpha m1 @ m2.")
clamp_ = _method("clamp_", lambda x, min=None, max=None: _ops().clamp(x, min, max),
                 "``x.clamp_(min, max)``: x clipped to [min, max].")
exp_ = _method("exp_", lambda x: math_unary.Exp(x), "``x.exp_()``: x = e ** x.")
log_ = _method("log_", lambda x: math_unary.Log(x), "``x.log_()``: x = log(x).")
floor_ = _method("floor_", lambda x: math_unary.Floor(x), "``x.floor_()``: x = floor(x).")
sign_ = _method("sign_", lambda x: Sign(x), "``x.sign_()``: x = sign(x).")
sigmoid_ = _method("sigmoid_", lambda x: _ops().sigmoid(x), "``x.sigmoid_()``.")
tanh_ = _method("tanh_", lambda x: Tanh(x), "``x.tanh_()``: x = tanh(x).")
erfinv_ = _method("erfinv_", lambda x: _ops().erfinv(x), "``x.erfinv_()``: x = erfinv(x).")
zero_ = _method("zero_", lambda x: ZerosLike(x), "``x.zero_()``: every element 0.")
fill_ = _method("fill_", lambda x, value: Fill(x.dtype, tuple(x.shape), value)
                if not isinstance(value, Tensor) else array.BroadcastTo(value, tuple(x.shape)),
                "``x.fill_(value)``: every element ``value``.")
copy_ = _method("copy_", lambda x, src, non_blocking=False: array.BroadcastTo(
    array.Cast(src, x.dtype), tuple(x.shape)), "``x.copy_(src)``: x's elements from src "
    "(broadcast, cast to x's dtype).")
masked_fill_ = _method("masked_fill_", lambda x, mask, value: _ops().masked_fill(x, mask, value),
                       "``x.masked_fill_(mask, value)``.")
masked_scatter_ = _method("masked_scatter_", lambda x, mask, source: x.masked_scatter(
    mask, source), "``x.masked_scatter_(mask, source)``.")
index_fill_ = _method("index_fill_", lambda x, dim, index, value: _ops().index_fill(
    x, dim, index, value), "``x.index_fill_(dim, index, value)``.")
index_put_ = _method("index_put_", lambda x, indices, values, accumulate=False: _ops().IndexPut(
    int(accumulate))(x, values, indices), "``x.index_put_(indices, values, accumulate)``.")
fill_diagonal_ = _method("fill_diagonal_", lambda x, fill_value, wrap=False: _ops().FillDiagonal(
    fill_value, wrap)(x), "``x.fill_diagonal_(value, wrap=False)``.")
scatter_ = _method("scatter_", lambda x, dim, index, src: _ops().scatter(x, dim, index, src),
                   "``x.scatter_(dim, index, src)``.")
scatter_add_ = _method("scatter_add_", lambda x, dim, index, src: _ops().tensor_scatter_elements(
    x, index, src, dim, "add"), "``x.scatter_add_(dim, index, src)``: adds src at index.")


def _index_add(x, dim, index, source, *, alpha=1):
    dim %= x.ndim
    idx = index.asnumpy() if isinstance(index, Tensor) else np.asarray(index)
    shape = [1] * x.ndim
    shape[dim] = idx.size
    full = np.broadcast_to(idx.reshape(shape), source.shape).astype(np.int64)
    return _ops().tensor_scatter_elements(x, Tensor(full), _scaled(source, alpha), dim, "add")


index_add_ = _method("index_add_", _index_add,
                     "``x.index_add_(dim, index, source, alpha=1)``: source rows added at index.")


def _random(sample):
    def compute(x, *args, generator=None, **kwargs):
        if generator is not None:
            raise ValueError("generator objects are not supported; seed with ms.set_seed")
        return sample(x, *args, **kwargs)
    return compute


uniform_ = _method("uniform_", _random(lambda x, from_=0, to=1: Add(
    Mul(_ops().rand_like(x), to - from_), from_)), "``x.uniform_(from_, to)``: U[from_, to).")
normal_ = _method("normal_", _random(lambda x, mean=0, std=1: Add(
    Mul(_ops().randn_like(x), std), mean)), "``x.normal_(mean, std)``: N(mean, std ** 2).")
bernoulli_ = _method("bernoulli_", _random(lambda x, p=0.5: array.Cast(
    _ops().less(_ops().rand_like(x), p), x.dtype)), "``x.bernoulli_(p)``: 1 with probability p.")
exponential_ = _method("exponential_", _random(lambda x, lambd=1: Mul(
    math_unary.Log1p(Mul(_ops().rand_like(x), -1.0)), -1.0 / lambd)),
    "``x.exponential_(lambd)``: samples of rate ``lambd``.")


def _random_ints(x, from_=0, to=None):
    if to is None:  # MindSpore's default: up to the largest integer the dtype holds exactly
        kind = np.dtype(x.dtype.np)
        to = 2 ** (np.finfo(kind).nmant + 1) if kind.kind == "f" else int(np.iinfo(kind).max)
    return _ops().randint_like(x, from_, to)


random_ = _method("random_", _random(_random_ints),
                  "``x.random_(from_, to)``: integers drawn uniformly from [from_, to).")


@functional(methods="requires_grad_")
def requires_grad_(self, requires_grad=True):
    """``p.requires_grad_(flag)``: marks a Parameter as trainable or not (a plain Tensor has
    no such flag here: ``ms.grad`` differentiates with respect to function arguments)."""
    if not hasattr(type(self), "requires_grad"):
        raise TypeError("requires_grad_: only a Parameter carries requires_grad; to "
                        "differentiate with respect to a Tensor pass it to ms.grad")
    self.requires_grad = bool(requires_grad)
    return self
