"""Weight initializers (MindSpore's ``mindspore.common.initializer``).

An Initializer is a callable that fills a numpy array in place, so it works both for
``initializer(init, shape, dtype)`` and for ``Tensor(shape=..., dtype=..., init=init)``.
Random initializers draw from ``ms_tensor.seed.next_generator()``: after
``set_seed(n)`` a script creates the same weights in every run.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ms_tensor import dtype as mstype
from ms_tensor.seed import next_generator
from ms_tensor.tensor import Tensor

__all__ = [
    "Initializer", "TruncatedNormal", "Normal", "Uniform", "XavierUniform", "XavierNormal",
    "HeUniform", "HeNormal", "Zero", "One", "Constant", "Identity", "Orthogonal",
    "VarianceScaling", "initializer", "calculate_fan_in_and_fan_out", "calculate_gain",
]


def calculate_fan_in_and_fan_out(shape) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight shaped ``(out, in, *kernel)``.

    A Dense weight ``(out, in)`` gives ``(in, out)``; a convolution weight multiplies
    both by the kernel's size.
    """
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError("fan_in and fan_out can not be computed for a tensor with fewer than "
                         f"2 dimensions, got shape {shape}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _correct_fan(shape, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = calculate_fan_in_and_fan_out(shape)
    return fan_in if mode == "fan_in" else fan_out


_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The gain that keeps activations' variance for ``nonlinearity`` (He/Xavier)."""
    if nonlinearity in _LINEAR:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope must be an int or float, got {param!r}")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError("nonlinearity must be one of 'linear', 'conv1d'..'conv_transpose3d', "
                     f"'sigmoid', 'tanh', 'relu', 'leaky_relu', got {nonlinearity!r}")


class Initializer:
    """Base class: subclasses implement ``_initialize(arr)``, filling ``arr`` in place.

    Calling an initializer on a numpy array fills it and returns it.
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _initialize(self, arr: np.ndarray) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _initialize(arr)")

    def __call__(self, arr: np.ndarray) -> np.ndarray:
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"{type(self).__name__}: expected a numpy array to fill, got "
                            f"{type(arr).__name__}")
        self._initialize(arr)
        return arr

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


def _assign(arr: np.ndarray, values) -> None:
    """Write ``values`` into ``arr`` (rounding toward the array's dtype)."""
    arr[...] = np.asarray(values).astype(arr.dtype, copy=False)


class Zero(Initializer):
    """All zeros."""

    def _initialize(self, arr):
        arr.fill(0)


class One(Initializer):
    """All ones."""

    def _initialize(self, arr):
        arr.fill(1)


class Constant(Initializer):
    """Every element equals ``value``."""

    def __init__(self, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Number):
            raise TypeError(f"Constant: value must be a number, got {type(value).__name__}")
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        arr.fill(self.value)


class Normal(Initializer):
    """Samples from N(mean, sigma**2)."""

    def __init__(self, sigma=0.01, mean=0.0):
        if sigma < 0:
            raise ValueError(f"Normal: sigma must be >= 0, got {sigma}")
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _initialize(self, arr):
        _assign(arr, next_generator().normal(self.mean, self.sigma, arr.shape))


class Uniform(Initializer):
    """Samples from U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        _assign(arr, next_generator().uniform(-self.scale, self.scale, arr.shape))


class TruncatedNormal(Initializer):
    """Samples from N(mean, sigma**2) restricted to the interval [a, b] (absolute
    bounds, as in MindSpore): out-of-range draws are redrawn."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        if sigma < 0:
            raise ValueError(f"TruncatedNormal: sigma must be >= 0, got {sigma}")
        if a >= b:
            raise ValueError(f"TruncatedNormal: a must be less than b, got a={a}, b={b}")
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _initialize(self, arr):
        _assign(arr, truncated_normal(next_generator(), arr.shape, self.mean, self.sigma,
                                      self.a, self.b))


def truncated_normal(rng: np.random.Generator, shape, mean, sigma, a, b) -> np.ndarray:
    """Normal draws kept in [a, b] by inverting the normal CDF on the allowed range, so
    every draw is accepted even when [a, b] lies far in a tail."""
    if sigma == 0:
        return np.full(shape, float(np.clip(mean, a, b)))
    lo = _normal_cdf((a - mean) / sigma)
    hi = _normal_cdf((b - mean) / sigma)
    u = rng.uniform(lo, hi, shape)
    return np.clip(mean + sigma * _normal_ppf(u), a, b)


def _normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _normal_ppf(p: np.ndarray) -> np.ndarray:
    """Inverse standard normal CDF (Acklam's rational approximation: relative error
    below 1.2e-9, far finer than a float32 weight)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-300, 1 - 1e-16)
    a = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
         1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00)
    b = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
         6.680131188771972e01, -1.328068155288572e01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
         -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00,
         3.754408661907416e00)
    plow = 0.02425
    x = np.empty_like(p)
    low, high = p < plow, p > 1 - plow
    mid = ~(low | high)
    q = p[mid] - 0.5
    r = q * q
    x[mid] = ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
              / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1))
    for mask, sign, tail in ((low, 1.0, p[low]), (high, -1.0, 1 - p[high])):
        q = np.sqrt(-2 * np.log(tail))
        x[mask] = sign * ((((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                          / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1))
    return x


class XavierUniform(Initializer):
    """Glorot uniform: U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = calculate_fan_in_and_fan_out(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        _assign(arr, next_generator().uniform(-bound, bound, arr.shape))


class XavierNormal(Initializer):
    """Glorot normal: N(0, std**2), std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = calculate_fan_in_and_fan_out(arr.shape)
        std = self.gain * math.sqrt(2.0 / (fan_in + fan_out))
        _assign(arr, next_generator().normal(0.0, std, arr.shape))


class HeUniform(Initializer):
    """Kaiming uniform: U(-bound, bound), bound = gain * sqrt(3 / fan) with the gain of
    ``nonlinearity`` (leaky_relu with ``negative_slope`` by default)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        calculate_gain(nonlinearity, negative_slope)  # reject bad arguments now
        if mode.lower() not in ("fan_in", "fan_out"):
            raise ValueError(f"HeUniform: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _initialize(self, arr):
        fan = _correct_fan(arr.shape, self.mode)
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        bound = math.sqrt(3.0) * gain / math.sqrt(fan)
        _assign(arr, next_generator().uniform(-bound, bound, arr.shape))


class HeNormal(Initializer):
    """Kaiming normal: N(0, std**2), std = gain / sqrt(fan)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        calculate_gain(nonlinearity, negative_slope)
        if mode.lower() not in ("fan_in", "fan_out"):
            raise ValueError(f"HeNormal: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _initialize(self, arr):
        fan = _correct_fan(arr.shape, self.mode)
        std = calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        _assign(arr, next_generator().normal(0.0, std, arr.shape))


class Identity(Initializer):
    """The identity matrix (2-D weights only)."""

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"Identity: only 2-D arrays can be initialized, got shape "
                             f"{arr.shape}")
        _assign(arr, np.eye(arr.shape[0], arr.shape[1]))


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``; dims after the first are flattened."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        if arr.ndim < 2:
            raise ValueError(f"Orthogonal: arrays need at least 2 dimensions, got shape "
                             f"{arr.shape}")
        rows, cols = arr.shape[0], arr.size // arr.shape[0]
        flat = next_generator().normal(0.0, 1.0, (rows, cols))
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        _assign(arr, (self.gain * q).reshape(arr.shape))


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n`` where n is fan_in, fan_out or their mean."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        if scale <= 0:
            raise ValueError(f"VarianceScaling: scale must be > 0, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("VarianceScaling: mode must be 'fan_in', 'fan_out' or 'fan_avg', "
                             f"got {mode!r}")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("VarianceScaling: distribution must be 'uniform', "
                             f"'truncated_normal' or 'untruncated_normal', got {distribution!r}")
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, arr):
        fan_in, fan_out = calculate_fan_in_and_fan_out(arr.shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        rng = next_generator()
        var = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * var)
            values = rng.uniform(-limit, limit, arr.shape)
        elif self.distribution == "untruncated_normal":
            values = rng.normal(0.0, math.sqrt(var), arr.shape)
        else:  # std of N(0,1) truncated to [-2, 2] is 0.87962566103423978
            std = math.sqrt(var) / 0.87962566103423978
            values = truncated_normal(rng, arr.shape, 0.0, std, -2 * std, 2 * std)
        _assign(arr, values)


_ALIASES = {
    "zero": Zero, "zeros": Zero, "one": One, "ones": One,
    "normal": Normal, "uniform": Uniform, "truncatednormal": TruncatedNormal,
    "xaviernormal": XavierNormal, "xavier_normal": XavierNormal,
    "xavieruniform": XavierUniform, "xavier_uniform": XavierUniform,
    "heuniform": HeUniform, "he_uniform": HeUniform,
    "henormal": HeNormal, "he_normal": HeNormal,
    "identity": Identity, "orthogonal": Orthogonal, "variancescaling": VarianceScaling,
}


def _normalize_shape(shape) -> tuple | None:
    if shape is None:
        return None
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    elif isinstance(shape, (list, tuple)):
        shape = tuple(shape)
    else:
        raise TypeError(f"initializer: shape must be an int, list or tuple, got "
                        f"{type(shape).__name__}")
    for v in shape:
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"initializer: every entry of shape must be a positive int, got "
                             f"{shape}")
    return tuple(int(v) for v in shape)


def initializer(init, shape=None, dtype=mstype.float32) -> Tensor:
    """A Tensor of ``shape`` and ``dtype`` filled by ``init``.

    Args:
        init: an Initializer, a name ("normal", "zeros", "xavier_uniform",
            "truncatedNormal", "he_uniform", ... case-insensitive), a number (every
            element), or a Tensor / numpy array (returned as a Tensor after checking
            its shape).
        shape: int, list or tuple of positive ints.
        dtype: the Tensor's dtype.

    >>> initializer("ones", (2,), mstype.float32)
    Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  1.00000000e+00])
    """
    if isinstance(init, (Tensor, np.ndarray)):
        value = init if isinstance(init, Tensor) else Tensor(init)
        if shape is not None:
            want = _normalize_shape(shape)
            if value.shape != want:
                raise ValueError(f"initializer: init has shape {value.shape} but shape is "
                                 f"{want}")
        return value
    shape = _normalize_shape(shape)
    if isinstance(init, str):
        cls = _ALIASES.get(init.lower())
        if cls is None:
            raise ValueError(f"initializer: unknown initializer name {init!r}; known names: "
                             f"{', '.join(sorted(_ALIASES))}")
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError("initializer: init must be a Tensor, number, str or Initializer, got "
                        f"{type(init).__name__}")
    if shape is None:
        raise ValueError(f"initializer: shape is needed to initialize with {init!r}")
    return Tensor(shape=shape, dtype=dtype, init=init)
