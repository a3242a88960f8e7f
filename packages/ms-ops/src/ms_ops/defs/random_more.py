"""More random operators: StandardLaplace and Poisson draws, RandomChoiceWithMask, and
the compositions ``laplace``, ``Cauchy``, ``LogNormalReverse``, ``bernoulli_ext``,
``MultinomialWithReplacement`` and MindSpore's padded ``Randperm``.

Seeding follows ``random.py``: a Primitive instance keeps its Generator, a functional
call takes a fresh one pinned by ``seed`` or drawn from the global stream.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array, math_unary
from ms_ops.defs.arithmetic import Add, Mul, Sub
from ms_ops.defs.random import (
    _SEEDS,
    _check_seeds,
    _check_shape,
    _run,
    multinomial,
    rand_like,
    randperm,
    uniform,
)
from ms_ops.infer import check_dtype, check_int
from ms_ops.opdef import FLOATS, STATIC, Arg, Attr, OpDef, TensorSpec, functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _shape_infer(shape, **attrs):
    _check_seeds(attrs)
    return TensorSpec(_check_shape(shape), mstype.float32)


StandardLaplace = OpDef("StandardLaplace", (Arg("shape", STATIC),), _SEEDS, infer=_shape_infer,
                        differentiable=False, stateful=True,
                        doc="float32 samples of Laplace(0, 1) with the given shape.")


@StandardLaplace.kernel("CPU", dtypes=None)
def standard_laplace_cpu(shape, seed=0, seed2=0, *, state):
    return state.laplace(0.0, 1.0, tuple(shape)).astype(np.float32)


@StandardLaplace.samples
def _standard_laplace(rng):
    yield ((2, 3),), {"seed": 1}


@functional("standard_laplace")
def standard_laplace(shape, seed=None):
    """``ops.standard_laplace``: Laplace(0, 1) samples of ``shape`` (float32)."""
    return _run("standard_laplace", StandardLaplace, seed, tuple(shape))


@functional("laplace")
def laplace(shape, mean, lambda_param, seed=None):
    """``ops.laplace``: Laplace(mean, lambda_param) samples of ``shape``."""
    return Add(Mul(standard_laplace(shape, seed), lambda_param), mean)


def _poisson_infer(shape, mean, **attrs):
    _check_seeds(attrs)
    check_dtype("mean", mean, FLOATS)
    out = np.broadcast_shapes(_check_shape(shape), tuple(mean.shape))
    return TensorSpec(tuple(out), mstype.float32)


Poisson = OpDef("Poisson", (Arg("shape", STATIC), Arg("mean")), _SEEDS, infer=_poisson_infer,
                differentiable=False, stateful=True,
                doc="float32 counts drawn from Poisson(mean), ``shape`` broadcast with mean.")


@Poisson.kernel("CPU", dtypes=FLOATS)
def poisson_cpu(mean, shape, seed=0, seed2=0, *, state):
    if np.any(mean < 0):
        raise ValueError("Poisson: mean must be non-negative")
    out_shape = np.broadcast_shapes(tuple(shape), mean.shape)
    return state.poisson(np.broadcast_to(mean, out_shape)).astype(np.float32)


@Poisson.samples
def _poisson(rng):
    yield ((2, 3), rng.random((2, 3)) * 4), {"seed": 1}


@functional("poisson")
def poisson(shape, mean, seed=None):
    """``ops.poisson``: Poisson(mean) counts of ``shape`` (broadcast with ``mean``)."""
    return _run("poisson", Poisson, seed, tuple(shape), mean)


def _choice_infer(input_x, count=256, **attrs):
    _check_seeds(attrs)
    check_dtype("input_x", input_x, {mstype.bool_})
    check_int("count", count, minimum=1)
    return (TensorSpec((count, input_x.ndim), mstype.int32), TensorSpec((count,), mstype.bool_))


RandomChoiceWithMask = OpDef(
    "RandomChoiceWithMask", (Arg("input_x"),), (Attr("count", 256),) + _SEEDS,
    infer=_choice_infer, differentiable=False, stateful=True,
    doc="(index, mask): up to ``count`` coordinates of True entries in random order, "
        "padded with zero rows whose mask is False.")


@RandomChoiceWithMask.kernel("CPU", dtypes=None)
def random_choice_with_mask_cpu(x, count=256, seed=0, seed2=0, *, state):
    where = np.argwhere(x)
    picked = where[state.permutation(len(where))[:count]]
    index = np.zeros((count, x.ndim), np.int32)
    index[:len(picked)] = picked
    mask = np.zeros(count, bool)
    mask[:len(picked)] = True
    return index, mask


@RandomChoiceWithMask.samples
def _choice(rng):
    yield (rng.random((3, 4)) < 0.5,), {"count": 5, "seed": 1}


@functional("choice_with_mask")
def choice_with_mask(input_x, count=256, seed=None):
    """``ops.choice_with_mask``: (index, mask) of up to ``count`` random True entries."""
    return _run("choice_with_mask", RandomChoiceWithMask, seed, input_x, count=count)


def _cauchy(size, median=0.0, sigma=1.0):
    u = uniform(tuple(size), Tensor(np.float32(0.0)), Tensor(np.float32(1.0)))
    return Add(Mul(math_unary.Tan(Mul(Sub(u, 0.5), np.pi)), sigma), median)


Cauchy = primitive_class("Cauchy", lambda size, median=0.0, sigma=1.0: _cauchy(
    size, median, sigma), ("size", "median", "sigma"))

LogNormalReverse = primitive_class("LogNormalReverse", lambda input, mean=1.0, std=2.0:
                                   math_unary.Exp(Add(Mul(_normal_like(input), std), mean)),
                                   ("mean", "std"))


def _normal_like(x):
    from ms_ops.defs.random import randn_like

    return randn_like(x)


@functional("bernoulli_ext")
def bernoulli_ext(input, *, generator=None):
    """``ops.bernoulli_ext``: 1 with probability input[i] (probabilities in [0, 1])."""
    if generator is not None:
        raise ValueError("bernoulli_ext: generator objects are not supported; seed with "
                         "ms.set_seed")
    from ms_ops.defs.comparison import Less

    return array.Cast(Less(rand_like(input), input), input.dtype)


@functional("multinomial_with_replacement")
def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """``ops.multinomial_with_replacement``: ``numsamples`` category indices per row of
    the weights ``x`` (int64)."""
    pinned = int(seed.asnumpy()) if isinstance(seed, Tensor) else seed
    out = multinomial(x, numsamples, replacement, seed=pinned or None)
    return array.Cast(out, mstype.int64)


MultinomialWithReplacement = primitive_class(
    "MultinomialWithReplacement", lambda x, seed, offset, numsamples, replacement=False:
    multinomial_with_replacement(x, seed, offset, numsamples, replacement),
    ("numsamples", "replacement"))


def _randperm_padded(n, max_length=1, pad=-1, dtype=mstype.int32):
    count = int(n.asnumpy().reshape(-1)[0]) if isinstance(n, Tensor) else int(n)
    if count > max_length:
        raise ValueError(f"Randperm: n {count} must not exceed max_length {max_length}")
    perm = array.Cast(randperm(count), dtype).asnumpy()
    out = np.full(max_length, pad, dtype.np)
    out[:count] = perm
    return Tensor(out)


Randperm = primitive_class("Randperm", _randperm_padded, ("max_length", "pad", "dtype"))
