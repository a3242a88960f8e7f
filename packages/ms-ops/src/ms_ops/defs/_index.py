"""Index descriptions: numpy-style indices as hashable static values, and their shapes.

An operator's static input must be hashable and must not hold tensor data (the plan
cache keys on it). So an index such as ``x[1:, None, mask, [0, 2]]`` is split in two:

- a *description*, a tuple with one entry per input axis it touches (Ellipsis is
  expanded): an ``int`` (picks one position), a 3-tuple ``(start, stop, step)`` (a
  slice), ``None`` (a new axis of size 1), or ``ADV`` (an integer-array index);
- the integer arrays, broadcast together and stacked into one int64 array of shape
  ``(k, *B)`` for the ``k`` ``ADV`` entries (a boolean mask becomes ``mask.ndim`` of
  them, from ``nonzero``), which the operator takes as a tensor input. An Ellipsis that
  covers no axis stays in the description when there are array indices: numpy counts it
  as separating the advanced entries around it.

The result follows numpy exactly: with any array index, the integer entries join the
advanced group, whose broadcast shape ``B`` replaces it in place when its entries are
adjacent and goes first otherwise.
"""

from __future__ import annotations

import operator

import numpy as np

ADV = "adv"
EMPTY_INDICES = np.empty((0,), np.int64)
EMPTY_INDICES.flags.writeable = False


def _int(v, what: str) -> int | None:
    if v is None:
        return None
    try:
        return operator.index(v)
    except TypeError:
        raise IndexError(f"{what} must be an int or None, got {type(v).__name__}") from None


def slice_entry(s: slice) -> tuple:
    step = _int(s.step, "slice step")
    if step == 0:
        raise ValueError("slice step cannot be zero")
    return (_int(s.start, "slice start"), _int(s.stop, "slice stop"), step)


FULL = (None, None, None)


def _as_index_array(item) -> np.ndarray:
    from ms_tensor.tensor import Tensor, array_of

    arr = np.asarray(array_of(item) if isinstance(item, Tensor) else item)
    if arr.dtype.kind == "b":
        if arr.ndim == 0:
            raise IndexError("a 0-d boolean index is not supported; use None to add an axis")
        return arr
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=False)
    if arr.size == 0:  # [] is float64 to numpy, but means "no positions"
        return arr.astype(np.int64)
    raise IndexError(f"tensors and lists used as indices must hold integers or bools, got "
                     f"{arr.dtype}")


def normalize_index(index, shape: tuple, name: str = "index") -> tuple[tuple, np.ndarray]:
    """(description, stacked int64 indices) for a Python index into ``shape``.

    Raises IndexError (starting with ``name``, naming the axis, its size and the input
    shape) for out-of-range positions, too many indices, mismatched masks and
    unsupported index types.
    """
    try:
        return _normalize(index, tuple(shape))
    except IndexError as e:
        raise IndexError(f"{name}: {e}") from None


def _normalize(index, shape):
    items = index if isinstance(index, tuple) else (index,)
    parts = []  # (kind, value): "int", "slice", "none", "ellipsis", "array"
    used = 0
    for item in items:
        if item is None:
            parts.append(("none", None))
        elif item is Ellipsis:
            if any(k == "ellipsis" for k, _ in parts):
                raise IndexError("an index can only have a single ellipsis (...)")
            parts.append(("ellipsis", None))
        elif isinstance(item, (bool, np.bool_)):
            raise IndexError("a bool scalar index is not supported; use None to add an axis")
        elif isinstance(item, slice):
            parts.append(("slice", slice_entry(item)))
            used += 1
        elif isinstance(item, (int, np.integer)):
            parts.append(("int", int(item)))
            used += 1
        elif hasattr(item, "shape") or isinstance(item, (list, tuple)):
            arr = _as_index_array(item)
            parts.append(("array", arr))
            used += arr.ndim if arr.dtype.kind == "b" else 1
        else:
            raise IndexError(f"only integers, slices, None, Ellipsis, bool masks and integer "
                             f"tensors/lists are valid indices, got {type(item).__name__}")
    if used > len(shape):
        raise IndexError(f"too many indices for input of shape {tuple(shape)}: {used} "
                         f"indices for {len(shape)} axes")
    desc, arrays, axis = [], [], 0
    for kind, value in parts:
        if kind == "none":
            desc.append(None)
        elif kind == "ellipsis":
            desc.extend([FULL] * (len(shape) - used))
            if len(shape) == used and any(k == "array" for k, _ in parts):
                desc.append(Ellipsis)  # empty, but it still separates advanced entries
            axis += len(shape) - used
        elif kind == "int":
            desc.append(value)
            axis += 1
        elif kind == "slice":
            desc.append(value)
            axis += 1
        elif value.dtype.kind == "b":
            covered = tuple(shape[axis:axis + value.ndim])
            if value.shape != covered:
                raise IndexError(f"boolean index of shape {value.shape} does not match input "
                                 f"shape {tuple(shape)} at axes {axis}..{axis + value.ndim - 1}")
            for a in np.nonzero(value):
                desc.append(ADV)
                arrays.append(a)
            axis += value.ndim
        else:
            n = shape[axis]
            bad = (value < -n) | (value >= n)
            if bad.any():
                raise IndexError(f"index {int(value[bad].flat[0])} is out of bounds for axis "
                                 f"{axis} with size {n} (input shape {tuple(shape)})")
            desc.append(ADV)
            arrays.append(value)
            axis += 1
    if not arrays:
        return tuple(desc), EMPTY_INDICES
    try:
        stacked = np.stack(np.broadcast_arrays(*arrays))
    except ValueError:
        raise IndexError("shape mismatch: index arrays could not be broadcast together with "
                         f"shapes {[a.shape for a in arrays]}") from None
    return tuple(desc), stacked


def numpy_index(desc: tuple, indices) -> tuple:
    """The numpy index a description stands for, with ``indices[j]`` for the j-th ADV."""
    out, j = [], 0
    for e in desc:
        if e.__class__ is tuple:
            out.append(slice(*e))
        elif e.__class__ is str:
            out.append(indices[j])
            j += 1
        else:
            out.append(e)
    return tuple(out)


def count_adv(desc: tuple) -> int:
    return sum(1 for e in desc if e.__class__ is str)


def index_shape(shape: tuple, desc: tuple, adv_shape: tuple = ()) -> tuple:
    """The shape of ``x[desc]`` for ``x`` of ``shape``; ``adv_shape`` is B (see above).

    Raises IndexError for an int out of range or too many indices.
    """
    out = []
    has_adv = any(e.__class__ is str for e in desc)
    adv_pos, insert_at, axis = [], None, 0
    for pos, e in enumerate(desc):
        if e is Ellipsis:  # covers no axis; only separates advanced entries (numpy's rule)
            continue
        if e is None:
            out.append(1)
            continue
        if axis >= len(shape):
            raise IndexError(f"too many indices for input of shape {tuple(shape)}")
        n = shape[axis]
        if e.__class__ is tuple:
            out.append(len(range(*slice(*e).indices(n))))
        else:
            if e.__class__ is int and not -n <= e < n:
                raise IndexError(f"index {e} is out of bounds for axis {axis} with size {n} "
                                 f"(input shape {tuple(shape)})")
            if has_adv:
                adv_pos.append(pos)
                if insert_at is None:
                    insert_at = len(out)
        axis += 1
    out.extend(shape[axis:])
    if has_adv:
        if adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1)):
            out[insert_at:insert_at] = adv_shape
        else:
            out = list(adv_shape) + out
    return tuple(out)


def check_desc(desc) -> tuple:
    """A description received as a static input, checked entry by entry."""
    if not isinstance(desc, tuple):
        raise TypeError(f"index must be a tuple description (see ms_ops.defs._index), got "
                        f"{type(desc).__name__}")
    for e in desc:
        ok = (e is None or e is Ellipsis or e == ADV
              or (isinstance(e, int) and not isinstance(e, bool))
              or (isinstance(e, tuple) and len(e) == 3
                  and all(v is None or isinstance(v, int) for v in e) and e[2] != 0))
        if not ok:
            raise TypeError(f"index entry {e!r} is not an int, a (start, stop, step) tuple, "
                            "None or ADV")
    return desc
