"""``Primitive``: MindSpore's class style of calling an operator.

``ops.MatMul(transpose_b=True)`` fixes the attributes; calling the instance runs the
operator on tensors. Each OpDef gets one Primitive subclass, made on demand.
"""

from __future__ import annotations

from ms_ops.dispatch import execute, execute_plain
from ms_ops.opdef import REQUIRED, OpDef

__all__ = ["Primitive", "make_primitive_class"]


class Primitive:
    """Base class of every operator class (``ops.Add``, ``ops.MatMul``, ...)."""

    op: OpDef

    def __init__(self, *args, **kwargs):
        op = self.op
        if len(args) > len(op.attrs):
            raise TypeError(f"{op.name}() takes at most {len(op.attrs)} attributes "
                            f"({', '.join(op.attr_names) or 'none'}), got {len(args)}")
        attrs = dict(zip(op.attr_names, args))
        for k, v in kwargs.items():
            if k not in op.attr_defaults:
                raise TypeError(f"{op.name}() got an unexpected attribute {k!r}; attributes: "
                                f"{', '.join(op.attr_names) or 'none'}")
            if k in attrs:
                raise TypeError(f"{op.name}() got multiple values for attribute {k!r}")
            attrs[k] = v
        self.attrs = op.complete_attrs(attrs)
        self.name = op.name
        self._state = None
        self._fast = not op.attrs and all(a.default is REQUIRED for a in op.inputs)

    def __getattr__(self, name):
        attrs = self.__dict__.get("attrs")
        if attrs is not None and name in attrs:
            return attrs[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __call__(self, *inputs, **kwargs):
        op = self.op
        if self._fast and not kwargs and len(inputs) == len(op.inputs):
            if op._plain and not self.attrs:  # ``ops.Add()(x, y)``: dispatch's fast path
                return execute_plain(op, inputs)
            return execute(op, inputs, self.attrs)
        if kwargs or len(inputs) != len(op.inputs):
            values, _ = op.bind(inputs, kwargs, with_attrs=False)
        else:
            values = inputs
        if op.stateful:
            if self._state is None:
                self._state = op.new_generator(self.attrs)
            return execute(op, values, self.attrs, state=self._state)
        return execute(op, values, self.attrs)

    def shard(self, in_strategy, out_strategy=None) -> Primitive:
        """Operator-level parallel strategy, as MindSpore's ``Primitive.shard``.

        ``in_strategy`` gives, per tensor input, how many slices each dimension is cut into
        (``ops.MatMul().shard(((2, 1), (1, 4)))``), or one ``ms.Layout`` call per input.
        ms-parallel's planner reads it under SEMI_AUTO/AUTO_PARALLEL; a single-device run
        ignores it. Returns the Primitive, so it chains after the constructor.
        """
        if not isinstance(in_strategy, (tuple, list)) or not in_strategy:
            raise TypeError(f"{self.name}.shard: in_strategy must be a tuple with one "
                            f"entry per input, got {in_strategy!r}")
        if out_strategy is not None and not isinstance(out_strategy, (tuple, list)):
            raise TypeError(f"{self.name}.shard: out_strategy must be a tuple or None, got "
                            f"{out_strategy!r}")
        self.in_strategy = tuple(in_strategy)
        self.out_strategy = None if out_strategy is None else tuple(out_strategy)
        # Calls must hand this Primitive's own attrs dict to dispatch (the fast path does
        # not): the planner finds the strategy of a recorded call by that dict.
        self._fast = False
        return self

    def add_prim_attr(self, name: str, value) -> Primitive:
        self.attrs[name] = value
        return self

    def infer(self, *specs):
        """Shape/dtype inference for these inputs, without running a kernel."""
        return self.op.abstract_eval(*specs, **self.attrs)

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]" + (f"<{attrs}>" if attrs else "")


def make_primitive_class(op: OpDef) -> type:
    doc = f"{op.__doc__}\n\nAttributes: {', '.join(map(repr, op.attrs)) or 'none'}.\n" \
          f"Inputs: {', '.join(map(repr, op.inputs))}."
    return type(op.name, (Primitive,), {"op": op, "__doc__": doc, "__module__": "ms_ops"})
