"""Primitive-style classes for functions that are compositions of operators.

MindSpore spells many functions twice: ``ops.hypot(x, y)`` and ``ops.Hypot()(x, y)``,
``ops.celu(x, alpha)`` and ``ops.CeLU(alpha)(x)``. Where the function is a composition
(not one OpDef, which gets its class from the registry) the class is made here, so each
spelling reaches the same definition.
"""

from __future__ import annotations

import sys

from ms_ops.opdef import functional


def primitive_class(name: str, fn, attrs: tuple[str, ...] = ()):
    """``ops.<name>(*attrs)(*inputs)`` calling ``fn(*inputs, **attrs)``, registered as
    ``ops.<name>`` by the family that defines it."""

    def __init__(self, *args, **kwargs):
        if len(args) > len(attrs):
            raise TypeError(f"{name}: takes at most {len(attrs)} arguments "
                            f"({', '.join(attrs) or 'none'}), got {len(args)}")
        unknown = set(kwargs) - set(attrs)
        if unknown:
            raise TypeError(f"{name}: unexpected argument {sorted(unknown)[0]!r}; "
                            f"arguments are {', '.join(attrs) or 'none'}")
        self.attrs = dict(zip(attrs, args), **kwargs)

    def __call__(self, *inputs):
        return fn(*inputs, **self.attrs)

    def __repr__(self):
        return f"Prim[{name}]"

    cls = type(name, (), {"__init__": __init__, "__call__": __call__, "__repr__": __repr__,
                          "__doc__": f"``ops.{name}()``: the class form of "
                                     f"``ops.{getattr(fn, '__name__', name)}``."})
    cls.__module__ = sys._getframe(1).f_globals["__name__"]
    return functional(name)(cls)
