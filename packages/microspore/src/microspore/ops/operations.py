"""``mindspore.ops.operations``: the Primitive classes (``P.Pow()``,
``P.MatMul(transpose_b=True)``).

Only class-style names (capitalised, as MindSpore spells Primitives) resolve here; the
functional names live in ``microspore.ops`` and ``microspore.ops.functional``.
"""

from ms_ops import Primitive
from ms_ops import functional as _functional

__all__ = ["Primitive"]


def __getattr__(name: str):
    if not name[:1].isupper():
        raise AttributeError(f"microspore.ops.operations has no Primitive {name!r} "
                             "(functional names are in microspore.ops)")
    return getattr(_functional, name)


def __dir__():
    return sorted({"Primitive"} | {n for n in dir(_functional) if n[:1].isupper()})
