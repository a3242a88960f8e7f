"""Random operators: StandardNormal, UniformReal, UniformInt, Bernoulli, Multinomial, ...

Every operator here is stateful: its kernel draws from the numpy Generator that
dispatch passes as ``state``. A Primitive instance keeps one Generator, so calling
``ops.StandardNormal(seed=1)`` twice gives two different draws, reproducibly; the
functional forms take a fresh Generator per call, pinned by ``seed`` when it is given
and otherwise taken from the global seed stream (``ms_tensor.seed.set_seed``).
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.arithmetic import Add, Mul, Sub
from ms_ops.dispatch import execute
from ms_ops.infer import broadcast_shapes, check_dtype, check_int
from ms_ops.opdef import (
    ALL,
    FLOATS,
    INTS,
    NUMBERS,
    STATIC,
    Arg,
    Attr,
    OpDef,
    TensorSpec,
    functional,
)
from ms_tensor import dtype as mstype
from ms_tensor.seed import next_generator
from ms_tensor.tensor import Tensor

_SEEDS = (Attr("seed", 0), Attr("seed2", 0))
_CATEGORY_TYPES = (mstype.int16, mstype.int32, mstype.int64)


def _check_shape(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = tuple(int(d) for d in shape.asnumpy().reshape(-1))
    if not isinstance(shape, (tuple, list)) or \
            any(not isinstance(d, int) or isinstance(d, bool) for d in shape):
        raise TypeError(f"shape must be a tuple of ints, got {shape!r}")
    if any(d <= 0 for d in shape):
        raise ValueError(f"shape {tuple(shape)} must have positive dimensions")
    return tuple(shape)


def _check_seeds(attrs) -> None:
    for name in ("seed", "seed2", "offset"):
        if name in attrs:
            check_int(name, attrs[name], minimum=0)


def _check_out_dtype(dtype, allowed) -> None:
    if dtype not in allowed:
        names = ", ".join(sorted(str(d) for d in allowed))
        raise TypeError(f"dtype must be one of {names}, got {dtype!r}")


def _sampler_infer(out_dtype):
    def infer(shape, **attrs):
        _check_seeds(attrs)
        return TensorSpec(_check_shape(shape), out_dtype)

    return infer


def _scalar_bound(name, spec):
    check_dtype(name, spec, (mstype.int32,))
    if math.prod(spec.shape) != 1 or len(spec.shape) > 1:
        raise ValueError(f"{name} must be a scalar (shape () or (1,)), got shape {spec.shape}")


def _random(name, inputs, attrs, infer, doc):
    return OpDef(name, inputs, attrs, infer=infer, differentiable=False, stateful=True, doc=doc)


def _check_weights(p):
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("probabilities must be finite and non-negative")
    if np.any(p.sum(axis=1) <= 0):
        raise ValueError("every row of probabilities must have a positive sum")


def _draw(p, n, state):
    """``n`` indices per row of the (rows, C) weights ``p``, with replacement.

    One searchsorted for all rows: row r's normalized CDF is shifted by r, so the rows
    occupy disjoint intervals of one increasing array.
    """
    rows, cats = p.shape
    cdf = np.cumsum(p, axis=1)
    cdf /= cdf[:, -1:]
    shift = np.arange(rows, dtype=np.float64)[:, None]
    u = state.random((rows, n)) + shift
    idx = np.searchsorted((cdf + shift).reshape(-1), u.reshape(-1), side="right")
    idx = idx.reshape(rows, n) - (shift * cats).astype(np.int64)
    return np.minimum(idx, cats - 1)


def seeded_generator(fn, seed):
    """The Generator for one functional call: pinned by ``seed``, else the global stream."""
    if seed is None:
        return next_generator()
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"{fn}: seed must be None or a non-negative int, got {seed!r}")
    return next_generator(seed, 0)


def _run(fn, op, seed, /, *args, **kwargs):
    values, attrs = op.bind(args, kwargs)
    return execute(op, values, attrs, state=seeded_generator(fn, seed))


def _size(fn, size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if any(not isinstance(d, int) or isinstance(d, bool) for d in size):
        raise TypeError(f"{fn}: size must be ints or one tuple of ints, got {size!r}")
    return tuple(size)


def _float_dtype(fn, dtype, default=mstype.float32):
    dtype = default if dtype is None else dtype
    if dtype not in FLOATS:
        raise TypeError(f"{fn}: dtype must be a float type, got {dtype!r}")
    return dtype


def _int_dtype(fn, dtype, default=mstype.int64):
    dtype = default if dtype is None else dtype
    if dtype not in INTS:
        raise TypeError(f"{fn}: dtype must be an int type, got {dtype!r}")
    return dtype


def _cast(x, dtype):
    return x if x.dtype is dtype else array.Cast(x, dtype)


def _randint(fn, low, high, size, seed, dtype):
    for name, v in (("low", low), ("high", high)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{fn}: {name} must be an int, got {v!r}")
    if low >= high:
        raise ValueError(f"{fn}: low {low} must be less than high {high}")
    info = np.iinfo(np.int32)
    if low < info.min or high > info.max:
        raise ValueError(f"{fn}: [low, high) = [{low}, {high}) must lie in the int32 range")
    out = _run(fn, UniformInt, seed, tuple(size), Tensor(low, mstype.int32),
               Tensor(high, mstype.int32))
    return _cast(out, dtype)


# Samples for the random operators (they are only run, with fixed seeds).
def _sampler(rng):
    yield ((2, 3),), {"seed": 1, "seed2": 2}
    yield ((4,),), {}


StandardNormal = _random("StandardNormal", (Arg("shape", STATIC),), _SEEDS,
                         _sampler_infer(mstype.float32),
                         "float32 samples of N(0, 1) with the given shape.")


# -- CPU kernels (``offset`` is Philox's stream offset in MindSpore; numpy's
# Generators need none, so the kernels accept it and ignore it) ---------------------------
@StandardNormal.kernel("CPU", dtypes=None)
def standard_normal_cpu(shape, seed=0, seed2=0, *, state):
    return state.standard_normal(tuple(shape), dtype=np.float32)


StandardNormal.samples(_sampler)


UniformReal = _random("UniformReal", (Arg("shape", STATIC),), _SEEDS,
                      _sampler_infer(mstype.float32),
                      "float32 samples of U[0, 1) with the given shape.")


@UniformReal.kernel("CPU", dtypes=None)
def uniform_real_cpu(shape, seed=0, seed2=0, *, state):
    return state.random(tuple(shape), dtype=np.float32)


UniformReal.samples(_sampler)


def _uniform_int_infer(shape, minval, maxval, **attrs):
    _check_seeds(attrs)
    _scalar_bound("minval", minval)
    _scalar_bound("maxval", maxval)
    return TensorSpec(_check_shape(shape), mstype.int32)


UniformInt = _random("UniformInt", (Arg("shape", STATIC), Arg("minval"), Arg("maxval")), _SEEDS,
                     _uniform_int_infer,
                     "int32 samples, uniform over [minval, maxval) (int32 scalar tensors).")


@UniformInt.kernel("CPU", dtypes=(mstype.int32,))
def uniform_int_cpu(minval, maxval, shape, seed=0, seed2=0, *, state):
    lo, hi = int(minval.reshape(-1)[0]), int(maxval.reshape(-1)[0])
    if lo >= hi:
        raise ValueError(f"minval {lo} must be less than maxval {hi}")
    return state.integers(lo, hi, size=tuple(shape), dtype=np.int32)


@UniformInt.samples
def _uniform_int(rng):
    yield ((2, 3), np.array(1, np.int32), np.array(5, np.int32)), {"seed": 1}
    yield ((4,), np.array([-3], np.int32), np.array([3], np.int32)), {}


def _bernoulli_infer(x, p, **attrs):
    _check_seeds(attrs)
    check_dtype("input", x, NUMBERS | {mstype.bool_})
    check_dtype("p", p, FLOATS)
    if broadcast_shapes(x, p, names=("input", "p")) != x.shape:
        raise ValueError(f"p shape {p.shape} must broadcast to input shape {x.shape}")
    return TensorSpec(x.shape, x.dtype)


# MindSpore's Bernoulli defaults seed to -1 ("random"); here that is seed=0, the value
# that every other random operator uses for "not pinned".
Bernoulli = _random("Bernoulli", (Arg("input"), Arg("p", default=0.5)),
                    (Attr("seed", 0), Attr("offset", 0)), _bernoulli_infer,
                    "1 with probability p, else 0, in the shape and dtype of ``input``.")


@Bernoulli.kernel("CPU", dtypes=None)
def bernoulli_cpu(x, p, seed=0, offset=0, *, state):
    p = np.asarray(p, np.float64)
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ValueError("p must lie in [0, 1]")
    return (state.random(x.shape) < p).astype(x.dtype)


@Bernoulli.samples
def _bernoulli(rng):
    yield (rng.standard_normal((2, 3)), rng.random((2, 3))), {"seed": 1}
    yield (rng.standard_normal((4,)), np.array(0.3)), {}


def _multinomial_infer(x, num_samples, seed=0, seed2=0, dtype=mstype.int32, replacement=True):
    _check_seeds({"seed": seed, "seed2": seed2})
    check_dtype("x", x, FLOATS)
    if x.ndim not in (1, 2):
        raise ValueError(f"x must be 1-d or 2-d (probabilities per category), got shape "
                         f"{x.shape}")
    check_int("num_samples", num_samples, minimum=1)
    _check_out_dtype(dtype, (mstype.int32, mstype.int64))
    if not replacement and num_samples > x.shape[-1]:
        raise ValueError(f"num_samples {num_samples} must not exceed the {x.shape[-1]} "
                         "categories when replacement is False")
    return TensorSpec(x.shape[:-1] + (num_samples,), dtype)


Multinomial = _random("Multinomial", (Arg("x"), Arg("num_samples", STATIC)),
                      _SEEDS + (Attr("dtype", mstype.int32), Attr("replacement", True)),
                      _multinomial_infer,
                      "Category indices drawn in proportion to the rows of ``x``; "
                      "``replacement=False`` draws each category at most once.")


@Multinomial.kernel("CPU", dtypes=FLOATS)
def multinomial_cpu(x, num_samples, seed=0, seed2=0, dtype=mstype.int32, replacement=True,
                    *, state):
    p = np.atleast_2d(np.asarray(x, np.float64))
    _check_weights(p)
    if replacement:
        out = _draw(p, num_samples, state)
    else:
        # Exponential race: the categories with the smallest E / p, E ~ Exp(1), are a
        # draw without replacement in proportion to p.
        with np.errstate(divide="ignore"):
            keys = state.standard_exponential(p.shape) / p
        out = np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    return out.reshape(x.shape[:-1] + (num_samples,)).astype(dtype.np)


@Multinomial.samples
def _multinomial(rng):
    yield (rng.random((2, 4)) + 0.1, 3), {"seed": 1}
    yield (rng.random((5,)) + 0.1, 4), {"replacement": False, "dtype": mstype.int64}


def _categorical_infer(logits, num_sample, seed=0, dtype=mstype.int64):
    check_dtype("logits", logits, FLOATS)
    if logits.ndim != 2:
        raise ValueError(f"logits must be 2-d (batch, classes), got shape {logits.shape}")
    check_int("num_sample", num_sample, minimum=1)
    check_int("seed", seed, minimum=0)
    _check_out_dtype(dtype, _CATEGORY_TYPES)
    return TensorSpec((logits.shape[0], num_sample), dtype)


RandomCategorical = _random("RandomCategorical",
                            (Arg("logits"), Arg("num_sample", STATIC), Arg("seed", STATIC, 0)),
                            (Attr("dtype", mstype.int64),), _categorical_infer,
                            "Category indices drawn from softmax(logits), per row.")


@RandomCategorical.kernel("CPU", dtypes=FLOATS)
def random_categorical_cpu(logits, num_sample, seed=0, dtype=mstype.int64, *, state):
    z = np.asarray(logits, np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return _draw(p, num_sample, state).astype(dtype.np)


@RandomCategorical.samples
def _categorical(rng):
    yield (rng.standard_normal((2, 4)), 3, 1), {}
    yield (rng.standard_normal((3, 2)), 5, 0), {"dtype": mstype.int32}


def _shuffle_infer(x, **attrs):
    _check_seeds(attrs)
    return TensorSpec(x.shape, x.dtype)


RandomShuffle = _random("RandomShuffle", (Arg("x"),), _SEEDS, _shuffle_infer,
                        "``x`` with its first axis randomly permuted.")


@RandomShuffle.kernel("CPU", dtypes=ALL)
def random_shuffle_cpu(x, seed=0, seed2=0, *, state):
    return x[state.permutation(x.shape[0])] if x.ndim else x.copy()


@RandomShuffle.samples
def _shuffle(rng):
    yield (rng.standard_normal((4, 2)),), {"seed": 1}
    yield (rng.standard_normal((5,)),), {}


def _randperm_infer(n, seed=0, offset=0, dtype=mstype.int64):
    check_int("n", n, minimum=1)
    _check_seeds({"seed": seed, "offset": offset})
    _check_out_dtype(dtype, NUMBERS)
    if dtype.kind in "iu" and n - 1 > np.iinfo(dtype.np).max:
        raise ValueError(f"n {n} does not fit in dtype {dtype}")
    return TensorSpec((n,), dtype)


RandpermV2 = _random("RandpermV2", (Arg("n", STATIC),),
                     (Attr("seed", 0), Attr("offset", 0), Attr("dtype", mstype.int64)),
                     _randperm_infer, "A random permutation of 0 .. n-1.")


@RandpermV2.kernel("CPU", dtypes=None)
def randperm_cpu(n, seed=0, offset=0, dtype=mstype.int64, *, state):
    return state.permutation(n).astype(dtype.np)


@RandpermV2.samples
def _randperm(rng):
    yield (5,), {"seed": 1}
    yield (3,), {"dtype": mstype.int32}


@functional("standard_normal")
def standard_normal(shape, seed=None):
    """float32 samples of N(0, 1).

    >>> ops.standard_normal((2, 3), seed=1).shape
    (2, 3)
    """
    return _run("standard_normal", StandardNormal, seed, shape)


@functional("randn")
def randn(*size, dtype=None, seed=None):
    """Samples of N(0, 1) with shape ``size`` (ints, or one tuple), float32 by default."""
    dtype = _float_dtype("randn", dtype)
    return _cast(_run("randn", StandardNormal, seed, _size("randn", size)), dtype)


@functional("rand")
def rand(*size, dtype=None, seed=None):
    """Samples of U[0, 1) with shape ``size`` (ints, or one tuple), float32 by default."""
    dtype = _float_dtype("rand", dtype)
    return _cast(_run("rand", UniformReal, seed, _size("rand", size)), dtype)


@functional("randint")
def randint(low, high, size, seed=None, *, dtype=None):
    """Integers uniform over ``[low, high)`` with shape ``size``; int64 by default.

    >>> ops.randint(0, 10, (2, 2), seed=3).dtype
    Int64
    """
    return _randint("randint", low, high, size, seed, _int_dtype("randint", dtype))


@functional("uniform")
def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    """Samples uniform over ``[minval, maxval)``; float dtypes or int32 (then the bounds are
    int32 tensors), broadcast with the bounds' shapes."""
    if dtype in FLOATS:
        u = _run("uniform", UniformReal, seed, shape)
        out = Add(Mul(u, Sub(maxval, minval)), minval)
        return _cast(out, dtype)
    if dtype is mstype.int32:
        return _run("uniform", UniformInt, seed, shape, minval, maxval)
    raise TypeError(f"uniform: dtype must be a float type or Int32, got {dtype!r}")


@functional("normal")
def normal(shape, mean, stddev, seed=None):
    """Samples of N(mean, stddev**2); the result broadcasts ``shape`` with the parameters."""
    return Add(Mul(_run("normal", StandardNormal, seed, shape), stddev), mean)


@functional("rand_like")
def rand_like(input, seed=None, *, dtype=None):
    """``rand`` with the shape (and, by default, dtype) of ``input``."""
    dtype = _float_dtype("rand_like", dtype, input.dtype)
    return _cast(_run("rand_like", UniformReal, seed, input.shape), dtype)


@functional("randn_like")
def randn_like(input, seed=None, *, dtype=None):
    """``randn`` with the shape (and, by default, dtype) of ``input``."""
    dtype = _float_dtype("randn_like", dtype, input.dtype)
    return _cast(_run("randn_like", StandardNormal, seed, input.shape), dtype)


@functional("randint_like")
def randint_like(input, low, high, seed=None, *, dtype=None):
    """``randint`` with the shape (and, by default, dtype) of ``input``."""
    dtype = _int_dtype("randint_like", dtype, input.dtype)
    return _randint("randint_like", low, high, input.shape, seed, dtype)


@functional("bernoulli")
def bernoulli(input, p=0.5, seed=None):
    """0/1 samples with probability ``p`` (a float or a tensor), in ``input``'s shape and dtype."""
    return _run("bernoulli", Bernoulli, seed, input, p)


@functional("multinomial", methods="multinomial")
def multinomial(input, num_samples, replacement=True, seed=None):
    """``num_samples`` category indices per row of ``input`` (non-negative weights), int32.

    >>> ops.multinomial(Tensor([[0.0, 1.0]]), 3, seed=1).asnumpy()
    array([[1, 1, 1]], dtype=int32)
    """
    return _run("multinomial", Multinomial, seed, input, num_samples, replacement=replacement)


@functional("random_categorical", methods="random_categorical")
def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """``num_sample`` draws per row of the 2-d ``logits`` (unnormalized log-probabilities).

    ``seed=0`` (or None) draws from the global stream.
    """
    seed = seed or 0
    return _run("random_categorical", RandomCategorical, seed or None, logits, num_sample, seed,
                dtype=dtype)


@functional("shuffle")
def shuffle(x, seed=None):
    """``x`` with its first axis randomly permuted."""
    return _run("shuffle", RandomShuffle, seed, x)


@functional("randperm")
def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """A random permutation of ``0 .. n-1``; ``seed=0`` (or None) draws from the global
    stream, and ``offset`` is accepted for MindSpore's API."""
    return _run("randperm", RandpermV2, seed or None, n, seed=seed or 0, offset=offset,
                dtype=dtype)


