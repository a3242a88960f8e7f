"""Building blocks for shape/dtype inference, and the errors they raise.

Inference sees ``TensorSpec``s (shape, dtype), never data. Inference functions raise
ValueError (shapes, values) or TypeError (dtypes, kinds) saying what they received and
what they expected; ``OpDef.run_infer`` puts the operator's name in front, so the
helpers here never need it.
"""

from __future__ import annotations

from ms_ops.opdef import TensorSpec, dtype_names
from ms_tensor import dtype as mstype

__all__ = [
    "broadcast_shapes", "elementwise", "same_as", "check_dtype", "check_rank",
    "normalize_axis", "normalize_axes", "check_int", "check_bool", "shape_text",
]


def shape_text(shape) -> str:
    return str(tuple(shape))


def broadcast_shapes(*specs: TensorSpec, names=None) -> tuple:
    """Numpy broadcasting of the specs' shapes, or a ValueError naming all of them."""
    shapes = [s.shape for s in specs]
    if all(s == shapes[0] for s in shapes):
        return shapes[0]
    ndim = max(len(s) for s in shapes)
    out = []
    for axis in range(-ndim, 0):
        dims = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(dims) > 1:
            names = names or ("x", "y", "z", "w")[: len(specs)]
            parts = " and ".join(f"{n} shape {shape_text(s)}" for n, s in zip(names, shapes))
            raise ValueError(f"{parts} cannot be broadcast: dimension {axis} "
                             f"is {' vs '.join(str(s[axis]) for s in shapes if len(s) >= -axis)}")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def check_dtype(name: str, spec: TensorSpec, allowed) -> None:
    if spec.dtype not in allowed:
        raise TypeError(f"input {name!r} has dtype {spec.dtype}, expected one of "
                        f"{dtype_names(allowed)}")


def check_rank(name: str, spec: TensorSpec, ranks) -> None:
    ranks = (ranks,) if isinstance(ranks, int) else tuple(ranks)
    if spec.ndim not in ranks:
        want = " or ".join(f"{r}-d" for r in ranks)
        raise ValueError(f"input {name!r} must be {want}, got shape "
                         f"{shape_text(spec.shape)} ({spec.ndim}-d)")


def check_int(name: str, value, minimum=None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name!r} must be an int, got {type(value).__name__} {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name!r} must be >= {minimum}, got {value}")
    return value


def check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name!r} must be a bool, got {type(value).__name__} {value!r}")
    return value


def normalize_axis(axis, ndim: int, name: str = "axis") -> int:
    """One axis in ``[-ndim, ndim)`` as a non-negative int (0-d accepts -1 and 0)."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"{name} must be an int, got {type(axis).__name__} {axis!r}")
    bound = max(ndim, 1)
    if not -bound <= axis < bound:
        raise ValueError(f"{name} {axis} is out of range for a {ndim}-d input "
                         f"(expected {-bound} <= {name} < {bound})")
    return axis % bound


def normalize_axes(axis, ndim: int, name: str = "axis") -> tuple:
    """``None``/``()`` mean all axes; an int or a sequence of ints, each checked once."""
    if axis is None or axis == () or axis == []:
        return tuple(range(ndim))
    if isinstance(axis, int) and not isinstance(axis, bool):
        return (normalize_axis(axis, ndim, name),)
    if not isinstance(axis, (tuple, list)):
        raise TypeError(f"{name} must be an int, a tuple of ints or None, got "
                        f"{type(axis).__name__}")
    axes = tuple(normalize_axis(a, ndim, name) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name} {tuple(axis)} repeats an axis")
    return axes


def elementwise(dtypes=None, out=None, names=("x", "y", "z", "w")):
    """Inference of an n-ary elementwise operator: broadcast shapes, check dtypes.

    ``out`` fixes the result dtype (``bool_`` for comparisons); by default it is the
    (promoted) dtype of the first input.
    """

    def infer(*specs, **_attrs):
        if dtypes is not None:
            for n, s in zip(names, specs):
                check_dtype(n, s, dtypes)
        shape = broadcast_shapes(*specs, names=names)
        return TensorSpec(shape, out if out is not None else specs[0].dtype)

    return infer


def same_as(index: int = 0, dtype=None):
    """The result has the shape (and dtype, unless given) of input ``index``."""

    def infer(*args, **_attrs):
        s = args[index]
        return TensorSpec(s.shape, dtype if dtype is not None else s.dtype)

    return infer


BOOL = mstype.bool_
