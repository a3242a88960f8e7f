"""Eager execution of an OpDef: plan once per call signature, then run the kernel.

The first call with a given signature (input dtypes and shapes, static arguments,
attributes) asks ``ms_ops.plan`` for a ``Plan`` and keeps it here, per operator;
later calls with that signature build the key, read the plan and call the kernel. So
every call is checked before a kernel runs, at the cost of one dict lookup. A plain
operator (tensor inputs only, no attributes: ``x + y``, most calls of gradient rules)
whose first run showed that the kernel needs no casts and returns exactly the inferred
array takes the fast path: build the key, call the kernel, wrap the result.

The caches are the dispatcher's, never the definition's, and are dropped whenever the
registry loads or resets (a plugin may have changed a kernel). The fast path reads and
sets Tensor's ``_data``/``_node`` slots directly, the one place outside ms-tensor that
may (``ms_tensor.tensor.array_of``/``wrap`` there cost 11% more per operator call;
``integration_tests/test_public_names.py`` has the numbers).
"""

from __future__ import annotations

import numpy as np

from ms_ops.opdef import _NO_ATTRS, TENSOR, TensorSpec
from ms_ops.planning import WEAK_SCALARS, Plan, plan
from ms_tensor import dtype as mstype
from ms_tensor import registry as _registry
from ms_tensor.context import on_change
from ms_tensor.tensor import Tensor, array_of, wrap

__all__ = ["execute", "execute_plain", "method_for", "input_array", "static_key",
           "set_recorder", "get_recorder", "set_kernel_observer", "kernel_observer",
           "OpError"]

_ndarray = np.ndarray
_new = object.__new__
_WEAK = frozenset(WEAK_SCALARS)
_recorder = None
_observer = None
_MAX_PLANS = 4096  # per operator; the cache is cleared when it would grow past this
_tables: dict = {}  # OpDef -> (plans, fast): signature -> Plan, and -> kernel


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


def set_kernel_observer(observer) -> object:
    """Install ``observer(op_name, kernel) -> kernel``, which may wrap each kernel (a
    profiler times it); ``None`` removes it. Returns the previous observer.

    Costs nothing while none is installed: plans take the observed kernel when they are
    made, so installing or removing one drops every plan (the next call of each
    signature plans again), and the per-call path never looks at the observer. ms-graph's
    executor asks ``kernel_observer()`` once per graph run.
    """
    global _observer
    previous, _observer = _observer, observer
    _forget()
    return previous


def kernel_observer():
    return _observer


def _tables_of(op) -> tuple[dict, dict]:
    t = _tables.get(op)
    if t is None:
        t = _tables.setdefault(op, ({}, {}))
    return t


def _forget(_reg=None) -> None:
    # Cleared in place: the fast paths made by ``method_for`` hold these dicts.
    for plans, fast in list(_tables.values()):
        plans.clear()
        fast.clear()


_registry.on_load(_forget)
_registry.on_reset(_forget)
on_change("device_target", _forget)  # an emulating backend's kernels (planning)


def execute(op, values, attrs, state=None):
    """Run ``op`` on ``values`` (one per input) with ``attrs``; return Tensor(s)."""
    plans, fast = _tables.get(op) or _tables_of(op)
    # The signature: dtype and shape of each tensor input, the static values, the attrs.
    key = []
    raw = []
    for i, a in enumerate(op.inputs):
        v = values[i]
        if a.kind == TENSOR:
            if isinstance(v, Tensor):
                arr = array_of(v)
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
                arr = input_array(op, a.name, v)
                key.append(arr.dtype)
                key.append(arr.shape)
                raw.append(arr)
        else:
            key.append(static_key(v))
    for v in attrs.values():
        t = type(v)
        key.append((t, v) if t in _WEAK else v if t is str else static_key(v))
    key = tuple(key)
    p = plans.get(key)
    if p is None:
        p = _plan_for(op, values, raw, attrs)
        if _observer is not None:
            p.kernel = _observer(op.name, p.kernel)
        if len(plans) >= _MAX_PLANS:  # e.g. indexing with every distinct integer
            plans.clear()
            fast.clear()
        plans[key] = p

    arrays = [a if c is None else (a.astype(c) if type(a) is _ndarray else np.asarray(a, c))
              for a, c in zip(raw, p.casts)] if p.cast else raw
    kwargs = p.kwargs
    if op.stateful:
        if state is None:
            state = op.new_generator(attrs)
        kwargs = dict(kwargs, state=state)
    try:
        result = p.kernel(*arrays, **kwargs)
    except MemoryError:
        raise  # the machine, not the operator: callers may free memory and retry
    except (IndexError, ValueError) as e:
        # Only the data can be wrong here (an index out of range, an invalid probability):
        # inference saw shapes and dtypes alone.
        raise type(e)(f"{op.name}: {e} (inputs {_specs_text(p.inputs)})") from None
    except Exception as e:  # inference accepted these inputs, so this is an operator bug
        raise OpError(f"{op.name}: kernel failed on inputs {p.inputs}: "
                      f"{type(e).__name__}: {e}") from e

    if op.inplace is not None:
        out = values[op.inplace] if type(op.inplace) is int else \
            tuple(values[i] for i in op.inplace)
    elif p.multi:
        out = tuple(wrap(_fix(r, d)) for r, d in zip(result, p.out_dtypes))
    else:
        d = p.out_dtypes
        if type(result) is not _ndarray or result.dtype != d:
            result = np.asarray(result, dtype=d)
        elif op._plain and not p.cast and all(type(a) is _ndarray for a in raw):
            fast[key] = p.kernel  # shown to need no fixing up: the fast path may run it
        out = wrap(result)
    if _recorder is not None:
        _recorder(op, values, attrs, out)
    return out


def execute_plain(op, args):
    """Run an operator whose inputs are all tensors and that has no attributes, through
    the fast path (``OpDef`` and ``Primitive`` calls of such operators come here)."""
    call = _calls.get(op)
    if call is None:
        call = _calls[op] = _fast_path(op)
    return call(*args)


def method_for(op, reflected: bool = False):
    """The Tensor method for ``op``, with the tensor as its first input (``reflected``: its
    second, as in ``__radd__``). Plain operators take the fast path; the rest call
    ``op(self, *args, **kwargs)``."""
    if op._plain:
        method = _fast_path(op, reflected)
    elif reflected:
        def method(self, other):
            return op(other, self)
    else:
        def method(self, *args, **kwargs):
            return op(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = \
        f"__r{op.name.lower()}__" if reflected else op.name.lower()
    method.__doc__ = op.__doc__
    return method


_calls: dict = {}  # OpDef -> its fast path, for execute_plain


def _fast_path(op, reflected: bool = False):
    """The one fast path: a function running plain ``op`` on its inputs (``reflected``:
    two inputs, given in the opposite order).

    Plain CPU tensors whose signature is in the operator's fast table (planned, and shown
    to need no casts and no fixing of the result) go straight to the kernel; anything
    else takes ``execute``. One and two inputs, the common cases, are spelled out: a
    loop over the inputs would cost as much as the rest of the path.
    """
    fast = _tables_of(op)[1]
    n = len(op.inputs)

    if n == 1:
        def call(x):
            if type(x) is Tensor:
                a = x._data
                kernel = fast.get((a.dtype, a.shape))
                if kernel is not None and type(a) is _ndarray:
                    t = _new(Tensor)
                    t._data = kernel(a)
                    t._node = None
                    if _recorder is not None:
                        _recorder(op, (x,), _NO_ATTRS, t)
                    return t
            return execute(op, (x,), _NO_ATTRS)
    elif n == 2:
        def call(x, y):
            if reflected:
                x, y = y, x
            if type(x) is Tensor and type(y) is Tensor:
                a = x._data
                b = y._data
                kernel = fast.get((a.dtype, a.shape, b.dtype, b.shape))
                if kernel is not None and type(a) is _ndarray and type(b) is _ndarray:
                    t = _new(Tensor)
                    t._data = kernel(a, b)
                    t._node = None
                    if _recorder is not None:
                        _recorder(op, (x, y), _NO_ATTRS, t)
                    return t
            return execute(op, (x, y), _NO_ATTRS)
    else:
        def call(*args):
            if len(args) == n:
                key = []
                for v in args:
                    if type(v) is not Tensor or type(array_of(v)) is not _ndarray:
                        break
                    a = array_of(v)
                    key.append(a.dtype)
                    key.append(a.shape)
                else:
                    kernel = fast.get(tuple(key))
                    if kernel is not None:
                        t = wrap(kernel(*map(array_of, args)))
                        if _recorder is not None:
                            _recorder(op, args, _NO_ATTRS, t)
                        return t
                return execute(op, args, _NO_ATTRS)
            return op(*args)  # binds, or names what is missing
    return call


def _plan_for(op, values, raw, attrs) -> Plan:
    """Plan this call: each tensor input as a spec (or weak scalar), on its arrays' backend."""
    args = list(values)
    for i, arr in zip(op.tensor_index, raw):
        if arr is not None and type(arr) not in _WEAK:
            args[i] = TensorSpec(arr.shape, mstype.from_numpy(arr.dtype))
        else:
            args[i] = arr
    return plan(op, args, attrs, backend=_backend_of(op, raw))


def _backend_of(op, raw) -> str:
    foreign = [type(a) for a in raw if hasattr(a, "shape") and type(a) is not _ndarray]
    if not foreign:
        return "CPU"
    for entry in _registry.load().entries("backend"):
        if foreign[0] in entry.value.array_types:
            return entry.name
    raise TypeError(f"{op.name}: no registered backend holds arrays of type "
                    f"{foreign[0].__name__}")


def _fix(r, d):
    if type(r) is not _ndarray or r.dtype != d:
        return np.asarray(r, dtype=d)
    return r


def _specs_text(specs) -> str:
    return ", ".join("None" if s is None else f"{s.shape} {s.dtype}" for s in specs) or "none"


def static_key(v):
    """A hashable key for a static argument or attribute value, equal only for values
    that give the same result (``1``, ``1.0`` and ``True`` differ; arrays by content)."""
    if type(v) in _WEAK:  # 1, 1.0 and True are equal dict keys but not equal arguments
        return (type(v), v)
    if isinstance(v, (list, tuple)):
        if all(type(x) is int for x in v):  # kernel sizes, strides, axes: the common case
            return ("ints", tuple(v))
        return tuple(static_key(x) for x in v)
    if isinstance(v, Tensor):
        v = array_of(v)
        return ("tensor", v.tobytes(), v.shape, v.dtype)
    if isinstance(v, np.ndarray):
        return ("array", v.tobytes(), v.shape, v.dtype)
    try:
        hash(v)
    except TypeError:
        return ("id", id(v))
    return v


def input_array(op, name: str, v):
    """``v`` (a list, tuple, numpy array or scalar given for tensor input ``name`` of
    ``op``) as an array; TypeError naming the operator and input where it cannot be one."""
    if isinstance(v, (list, tuple, np.ndarray, np.generic, complex)):
        try:
            return array_of(Tensor(v))
        except (TypeError, ValueError) as e:
            raise TypeError(f"{op.name}: input {name!r} cannot be made a tensor: {e}") from None
    if hasattr(v, "__array__"):
        return np.asarray(v)
    raise TypeError(f"{op.name}: input {name!r} must be a Tensor, a number or a sequence, "
                    f"got {type(v).__name__}")
