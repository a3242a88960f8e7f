"""Eager execution of an OpDef: check, promote, run the kernel, wrap, record.

The first call with a given signature (input dtypes and shapes, static arguments,
attributes) runs promotion and inference and keeps the outcome as a ``_Plan``; later
calls with the same signature only build the key, read the plan and call the kernel.
So every call is checked before a kernel runs, at the cost of one dict lookup.
"""

from __future__ import annotations

import numpy as np

from ms_ops.opdef import _NO_ATTRS, TENSOR, TensorSpec, dtype_names
from ms_tensor import dtype as mstype
from ms_tensor import registry as _registry
from ms_tensor.tensor import Tensor, wrap

__all__ = ["execute", "execute_plain", "binary_method", "unary_method", "method_for",
           "set_recorder", "get_recorder", "OpError"]

_ndarray = np.ndarray
_new = object.__new__
_from_np = mstype._FROM_NP
_WEAK = {bool: mstype.WEAK_BOOL, int: mstype.WEAK_INT, float: mstype.WEAK_FLOAT}
_recorder = None
_SCALARS = (bool, int, float)
_MAX_PLANS = 4096  # per operator; the cache is cleared when it would grow past this


class OpError(RuntimeError):
    """A kernel failed although inference accepted its inputs (a bug in the operator)."""


def set_recorder(recorder) -> object:
    """Install ``recorder(op, inputs, attrs, outputs)``, called after every eager op.

    ms-autodiff installs its tape here; ``None`` turns recording off. Returns the
    previous recorder so callers can restore it.
    """
    global _recorder
    previous, _recorder = _recorder, recorder
    return previous


def get_recorder():
    return _recorder


class _Plan:
    __slots__ = ("casts", "uncast", "out", "multi", "kwargs", "kernel", "specs", "exact")

    def __init__(self, casts, out, multi, kwargs, kernel, specs):
        self.casts = casts
        self.uncast = not any(c is not None for c in casts)
        self.out = out
        self.multi = multi
        self.kwargs = kwargs
        self.kernel = kernel
        self.specs = specs
        # True once a run showed the kernel needs no input casts and returns exactly the
        # inferred array: the fast paths below may then skip all fixing up.
        self.exact = False


def _bind_registry(op) -> None:
    reg = _registry.load()
    if reg.primitive(op.name) is not op:
        raise _registry.RegistrationError(
            f"{op.name} is not a registered primitive (is its plugin installed?)")
    op._cache.clear()
    op._kernel_cpu = reg.kernel(op.name, "CPU")
    entry = reg.entry("kernel", op.name, "CPU")
    op._kernel_dtypes = None if entry is None else entry.info.get("dtypes")
    op._gen = reg.generation


def execute(op, values, attrs, state=None):
    """Run ``op`` on ``values`` (one per input) with ``attrs``; return Tensor(s)."""
    if op._gen != _registry._generation:
        _bind_registry(op)
    # The signature: dtype and shape of each tensor input, the static values, the attrs.
    key = []
    raw = []
    for i, a in enumerate(op.inputs):
        v = values[i]
        if a.kind == TENSOR:
            if isinstance(v, Tensor):
                arr = v._data
                key.append(arr.dtype)
                key.append(arr.shape)
                if type(arr) is not _ndarray:
                    key.append(type(arr))
                raw.append(arr)
            elif type(v) in _WEAK:
                key.append(type(v))
                raw.append(v)
            elif v is None and a.default is None:  # an optional input left out
                key.append(None)
                raw.append(None)
            else:
                arr = _as_array(op, a.name, v)
                key.append(arr.dtype)
                key.append(arr.shape)
                raw.append(arr)
        else:
            key.append(_hashable(v))
    for v in attrs.values():
        t = type(v)
        key.append((t, v) if t in _SCALARS else v if t is str else _hashable(v))
    key = tuple(key)
    plan = op._cache.get(key)
    if plan is None:
        plan = _make_plan(op, values, raw, attrs)
        if len(op._cache) >= _MAX_PLANS:  # e.g. indexing with every distinct integer
            op._cache.clear()
        op._cache[key] = plan

    arrays = raw if plan.uncast else [
        a if c is None else (a.astype(c) if type(a) is _ndarray else np.asarray(a, c))
        for a, c in zip(raw, plan.casts)]
    kwargs = plan.kwargs
    if op.stateful:
        if state is None:
            state = op.new_generator(attrs)
        kwargs = dict(kwargs, state=state)
    try:
        result = plan.kernel(*arrays, **kwargs)
    except (IndexError, ValueError) as e:
        # Only the data can be wrong here (an index out of range, an invalid probability):
        # inference saw shapes and dtypes alone.
        raise type(e)(f"{op.name}: {e} (inputs {_specs_text(plan.specs)})") from None
    except Exception as e:  # inference accepted these inputs, so this is an operator bug
        raise OpError(f"{op.name}: kernel failed on inputs {plan.specs}: "
                      f"{type(e).__name__}: {e}") from e

    if op.inplace is not None:
        out = values[op.inplace] if type(op.inplace) is int else \
            tuple(values[i] for i in op.inplace)
    elif plan.multi:
        out = tuple(wrap(_fix(r, d)) for r, d in zip(result, plan.out))
    else:
        d = plan.out
        if type(result) is not _ndarray or result.dtype != d:
            result = np.asarray(result, dtype=d)
        elif not plan.exact and raw and type(raw[0]) is _ndarray and not any(plan.casts) \
                and not op.stateful and not plan.kwargs:
            plan.exact = True
        out = wrap(result)
    if _recorder is not None:
        _recorder(op, values, attrs, out)
    return out


def _fix(r, d):
    if type(r) is not _ndarray or r.dtype != d:
        return np.asarray(r, dtype=d)
    return r


def _specs_text(specs) -> str:
    return ", ".join("None" if s is None else f"{s.shape} {s.dtype}" for s in specs) or "none"


def _hashable(v):
    if type(v) in _SCALARS:  # 1, 1.0 and True are equal dict keys but not equal arguments
        return (type(v), v)
    if isinstance(v, (list, tuple)):
        if all(type(x) is int for x in v):  # kernel sizes, strides, axes: the common case
            return ("ints", tuple(v))
        return tuple(_hashable(x) for x in v)
    if isinstance(v, Tensor):
        return ("tensor", v._data.tobytes(), v._data.shape, v._data.dtype)
    if isinstance(v, np.ndarray):
        return ("array", v.tobytes(), v.shape, v.dtype)
    try:
        hash(v)
    except TypeError:
        return ("id", id(v))
    return v


def _as_array(op, name, v):
    if isinstance(v, (list, tuple, np.ndarray, np.generic, complex)):
        try:
            return Tensor(v)._data
        except (TypeError, ValueError) as e:
            raise TypeError(f"{op.name}: input {name!r} cannot be made a tensor: {e}") from None
    if hasattr(v, "__array__"):
        return np.asarray(v)
    raise TypeError(f"{op.name}: input {name!r} must be a Tensor, a number or a sequence, "
                    f"got {type(v).__name__}")


def _make_plan(op, values, raw, attrs) -> _Plan:
    """Promote, infer and pick the kernel for one signature (the slow path)."""
    dtypes = []
    for a in raw:
        w = _WEAK.get(type(a))
        dtypes.append(w if w is not None else None if a is None else mstype.from_numpy(a.dtype))
    promoted = [a.promote and r is not None
                for a, r in zip((op.inputs[i] for i in op.tensor_index), raw)]
    target = None
    if op.promote is not None:
        ps = [d for d, p in zip(dtypes, promoted) if p]
        if ps:
            target = mstype.result_type(*ps)
            if op.promote == "float" and target.kind in "biu":
                target = mstype.float32
    final = []
    for d, p in zip(dtypes, promoted):
        if d is None:
            final.append(None)
        elif p and target is not None:
            final.append(target)
        else:
            final.append(d.default if isinstance(d, mstype._Weak) else d)
    specs = []
    args = []
    t = 0
    for i, a in enumerate(op.inputs):
        if a.kind == TENSOR:
            arr = raw[t]
            shape = arr.shape if hasattr(arr, "shape") else ()
            spec = None if arr is None else TensorSpec(shape, final[t])
            specs.append(spec)
            args.append(spec)
            t += 1
        else:
            args.append(values[i])
    out = op.run_infer(*args, **attrs)

    kernel = _kernel_for(op, raw)
    allowed = op._kernel_dtypes
    if allowed is not None:
        for a_idx, (spec, p) in enumerate(zip(specs, promoted)):
            if p and spec.dtype not in allowed:
                name = op.inputs[op.tensor_index[a_idx]].name
                raise TypeError(f"{op.name}: input {name!r} has dtype {spec.dtype}, but the "
                                f"CPU kernel supports {dtype_names(allowed)}")
    casts = []
    for a, d in zip(raw, final):
        if a is None:
            casts.append(None)
            continue
        np_d = d.np
        if type(a) in _WEAK:
            casts.append(np_d)
        else:
            casts.append(None if a.dtype == np_d else np_d)
    multi = isinstance(out, tuple)
    out_np = tuple(s.dtype.np for s in out) if multi else out.dtype.np
    kwargs = {a.name: values[i] for i, a in enumerate(op.inputs) if a.kind != TENSOR}
    kwargs.update(attrs)
    written = () if op.inplace is None else \
        (op.inplace,) if type(op.inplace) is int else op.inplace
    for i in written:
        t = op.tensor_index.index(i)
        if casts[t] is not None:
            raise TypeError(f"{op.name}: in-place input {op.inputs[i].name!r} has dtype "
                            f"{dtypes[t]}, but the operation computes in {final[t]}; cast it first")
    return _Plan(tuple(casts), out_np, multi, kwargs, kernel, tuple(specs))


def _kernel_for(op, raw):
    foreign = [type(a) for a in raw if hasattr(a, "shape") and type(a) is not _ndarray]
    if not foreign:
        if op._kernel_cpu is None:
            raise NotImplementedError(f"{op.name}: no CPU kernel is registered")
        return op._kernel_cpu
    reg = _registry.load()
    for entry in reg.entries("backend"):
        if foreign[0] in entry.value.array_types:
            k = reg.kernel(op.name, entry.name)
            if k is None:
                raise NotImplementedError(f"{op.name}: no {entry.name} kernel is registered")
            return k
    raise TypeError(f"{op.name}: no registered backend holds arrays of type "
                    f"{foreign[0].__name__}")


def execute_plain(op, args):
    """``execute`` for operators whose inputs are all tensors and that have no attributes.

    Plain CPU tensors whose signature has a checked, cast-free plan go straight to the
    kernel (what gradient rules mostly call); anything else takes ``execute``.
    """
    if op._gen == _registry._generation:
        key = []
        for v in args:
            if type(v) is not Tensor or type(v._data) is not _ndarray:
                break
            a = v._data
            key.append(a.dtype)
            key.append(a.shape)
        else:
            plan = op._cache.get(tuple(key))
            if plan is not None and plan.exact:
                t = _new(Tensor)
                t._data = plan.kernel(*[v._data for v in args])
                t._node = None
                if _recorder is not None:
                    _recorder(op, args, _NO_ATTRS, t)
                return t
    return execute(op, args, _NO_ATTRS)


def binary_method(op, reflected: bool = False):
    """``Tensor.__add__``-style method for ``op``, with a fast path for the common case.

    Two plain Tensors on the CPU whose signature has already been checked (and needs no
    casts) go straight to the kernel; anything else takes ``execute``.
    """
    cache = op._cache

    def method(self, other):
        if type(other) is Tensor and type(self) is Tensor and op._gen == _registry._generation:
            a, b = (other._data, self._data) if reflected else (self._data, other._data)
            plan = cache.get((a.dtype, a.shape, b.dtype, b.shape))
            if plan is not None and plan.exact and type(a) is _ndarray and type(b) is _ndarray:
                t = _new(Tensor)
                t._data = plan.kernel(a, b)
                t._node = None
                if _recorder is not None:
                    _recorder(op, (other, self) if reflected else (self, other), _NO_ATTRS, t)
                return t
        return execute(op, (other, self) if reflected else (self, other), _NO_ATTRS)

    method.__name__ = f"__r{op.name.lower()}__" if reflected else f"__{op.name.lower()}__"
    return method


def unary_method(op):
    """A one-input Tensor method for ``op`` (``Tensor.__neg__``, ``Tensor.exp``)."""
    cache = op._cache

    def method(self):
        if type(self) is Tensor and op._gen == _registry._generation:
            a = self._data
            plan = cache.get((a.dtype, a.shape))
            if plan is not None and plan.exact and type(a) is _ndarray:
                t = _new(Tensor)
                t._data = plan.kernel(a)
                t._node = None
                if _recorder is not None:
                    _recorder(op, (self,), _NO_ATTRS, t)
                return t
        return execute(op, (self,), _NO_ATTRS)

    method.__name__ = op.name.lower()
    return method


def method_for(op, reflected: bool = False):
    """The Tensor method for ``op``, with the tensor as its first input (``reflected``:
    its second, as in ``__radd__``). Operators of one or two plain tensor inputs get the
    fast paths above; the rest call ``op(self, *args, **kwargs)``."""
    if op._plain and len(op.inputs) == 2:
        return binary_method(op, reflected)
    if op._plain and len(op.inputs) == 1 and not reflected:
        return unary_method(op)
    if reflected:
        def method(self, other):
            return op(other, self)
    else:
        def method(self, *args, **kwargs):
            return op(self, *args, **kwargs)
    return method
