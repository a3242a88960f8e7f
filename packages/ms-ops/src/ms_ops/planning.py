"""Planning one call of an operator from specs: promotion, inference, kernel choice.

``plan(op, args, attrs)`` answers, without any data, what a call with these shapes and
dtypes needs: the dtype each tensor input is cast to, the inferred outputs, the kernel
and the keyword arguments it is called with. Eager dispatch keeps one ``Plan`` per call
signature; graph compile (ms-graph's inference and executor) plans each node the same
way, so every engine checks and promotes exactly alike.

>>> from ms_ops.opdef import TensorSpec
>>> from ms_ops.planning import plan
>>> from ms_tensor import float32, int32, registry
>>> p = plan(registry.load().primitive("Add"), [TensorSpec((2, 3), int32), 1.5])
>>> p.outputs, p.casts
(TensorSpec((2, 3), Float32), (dtype('float32'), dtype('float32')))
"""

from __future__ import annotations

from ms_ops.opdef import _NO_ATTRS, TENSOR, TensorSpec, dtype_names
from ms_tensor import dtype as mstype
from ms_tensor import registry as _registry

__all__ = ["Plan", "plan", "WEAK_SCALARS"]

_WEAK = {bool: mstype.WEAK_BOOL, int: mstype.WEAK_INT, float: mstype.WEAK_FLOAT}
_WEAK_TYPES = (mstype.WEAK_BOOL, mstype.WEAK_INT, mstype.WEAK_FLOAT)
WEAK_SCALARS = (bool, int, float)
"""Python scalar types a tensor input may take as is (cast to the promoted dtype)."""


class Plan:
    """What one call signature of an operator needs at run time.

    Attributes:
        op: the OpDef.
        inputs: one TensorSpec per tensor input after promotion (None for an optional
            input left out): what the kernel receives.
        casts: per tensor input, the numpy dtype to cast it to first, or None.
        cast: some input needs a cast (a weak scalar always does: it becomes an array).
        outputs: the inferred TensorSpec, or a tuple of them for several outputs.
        multi: True when ``outputs`` is a tuple.
        out_dtypes: the numpy dtype of ``outputs`` (a tuple when ``multi``).
        kernel: the backend's kernel, called as ``kernel(*arrays, **kwargs)``.
        kwargs: static inputs and attributes, by name.
        backend: the backend whose kernel this is.
        takes_out: the kernel accepts ``out=`` (an array to write its one output into).
    """

    __slots__ = ("op", "inputs", "casts", "cast", "outputs", "multi", "out_dtypes", "kernel",
                 "kwargs", "backend", "takes_out")

    def __init__(self, op, inputs, casts, outputs, kernel, kwargs, backend, takes_out):
        self.op = op
        self.inputs = inputs
        self.casts = casts
        self.cast = any(c is not None for c in casts)
        self.outputs = outputs
        self.multi = isinstance(outputs, tuple)
        self.out_dtypes = tuple(s.dtype.np for s in outputs) if self.multi \
            else outputs.dtype.np
        self.kernel = kernel
        self.kwargs = kwargs
        self.backend = backend
        self.takes_out = takes_out

    def __repr__(self) -> str:
        return (f"Plan({self.op.name}, inputs={list(self.inputs)}, outputs={self.outputs}, "
                f"kernel={getattr(self.kernel, '__qualname__', self.kernel)})")


def plan(op, args, attrs=None, *, backend: str = "CPU") -> Plan:
    """Plan a call of ``op`` on abstract inputs.

    Args:
        op: a registered OpDef.
        args: one per ``op.inputs``. For a tensor input: a ``TensorSpec``, a Python
            bool/int/float (a weak scalar: it adapts to the tensors it meets), or None
            where an optional input is left out. For a static input: its Python value.
        attrs: the attributes; missing ones take their defaults.
        backend: whose kernel runs (``"CPU"``, or a device plugin's backend name).
    Returns:
        A ``Plan``.
    Raises:
        TypeError / ValueError: from promotion, inference or the kernel's dtype set,
            naming the operator, the input and what it expected.
        NotImplementedError: no kernel of ``backend`` is registered for ``op``.
    """
    attrs = op.complete_attrs(_NO_ATTRS if attrs is None else attrs)
    reg = _registry.load()
    if reg.primitive(op.name) is not op:
        raise _registry.RegistrationError(
            f"{op.name} is not a registered primitive (is its plugin installed?)")
    tensors = [args[i] for i in op.tensor_index]
    dtypes = [None if a is None else _WEAK[type(a)] if type(a) in _WEAK else a.dtype
              for a in tensors]
    promoted = [op.inputs[i].promote and a is not None
                for i, a in zip(op.tensor_index, tensors)]
    target = None
    if op.promote is not None:
        ps = [d for d, p in zip(dtypes, promoted) if p]
        if ps:
            target = mstype.result_type(*ps)
            if op.promote == "float" and target.kind in "biu":
                target = mstype.float32
    final = [None if d is None else target if p and target is not None
             else d.default if d in _WEAK_TYPES else d for d, p in zip(dtypes, promoted)]
    specs = tuple(None if a is None else TensorSpec(getattr(a, "shape", ()), d)
                  for a, d in zip(tensors, final))
    infer_args = list(args)
    for i, s in zip(op.tensor_index, specs):
        infer_args[i] = s
    outputs = op.run_infer(*infer_args, **attrs)

    if backend == "CPU":  # numpy arrays: an emulating device_target may take them
        backend, entry = _host_kernel(reg, op.name)
    else:
        entry = reg.entry("kernel", op.name, backend)
    if entry is None:
        reg.kernel(op.name, backend)  # raises for an unknown backend
        raise NotImplementedError(f"{op.name}: no {backend} kernel is registered")
    allowed = entry.info.get("dtypes")
    if allowed is not None:
        for k, (spec, p) in enumerate(zip(specs, promoted)):
            if p and spec.dtype not in allowed:
                name = op.inputs[op.tensor_index[k]].name
                raise TypeError(f"{op.name}: input {name!r} has dtype {spec.dtype}, but the "
                                f"{backend} kernel supports {dtype_names(allowed)}")
    casts = tuple(None if d is None or (f is d) else f.np for d, f in zip(dtypes, final))
    inplace = () if op.inplace is None else \
        (op.inplace,) if type(op.inplace) is int else op.inplace
    for i in inplace:
        t = op.tensor_index.index(i)
        if casts[t] is not None:
            raise TypeError(f"{op.name}: in-place input {op.inputs[i].name!r} has dtype "
                            f"{dtypes[t]}, but the operation computes in {final[t]}; "
                            "cast it first")
    kwargs = {a.name: args[i] for i, a in enumerate(op.inputs) if a.kind != TENSOR}
    kwargs.update(attrs)
    multi = isinstance(outputs, tuple)
    takes_out = bool(entry.info.get("out")) and not multi and op.inplace is None
    return Plan(op, specs, casts, outputs, entry.value, kwargs, backend, takes_out)


def _host_kernel(reg, name: str):
    """The kernel for numpy arrays: the CPU's, or, while the context's device_target is a
    backend with ``host_arrays`` (an emulator), that backend's where it has one."""
    from ms_tensor.context import get_context

    target = get_context("device_target")
    if target != "CPU" and getattr(reg.lookup("backend", target), "host_arrays", False):
        entry = reg.entry("kernel", name, target)
        if entry is not None:
            return target, entry
    return "CPU", reg.entry("kernel", name, "CPU")
