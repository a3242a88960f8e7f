"""Strategies: a cut count per free letter of an operator, and the layouts they give.

MindSpore writes a strategy per input tensor (``MatMul().shard(((2, 1), (1, 4)))``); here it is
held as one cut per free letter of the op's ``OpSpec`` (``i=2, k=1, j=4``), from which every
input's and output's layout follows. The op's device matrix is ``(repeat, cut_1, cut_2, ...)``:
devices left over replicate the computation (MindSpore's repeated calculation, outermost).
"""

from __future__ import annotations

import math

from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.spec import OpSpec

__all__ = ["candidates", "layouts", "to_strategy", "from_strategy", "divisors"]


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def candidates(spec: OpSpec, device_num: int, fully_use_devices: bool = True) -> list[tuple]:
    """Every valid strategy; with ``fully_use_devices`` only those that use all devices
    (MindSpore's default) when the op has any."""
    sizes = spec.sizes()
    choices = [[d for d in divisors(device_num) if all(n % d == 0 for n in sizes[c])]
               for c in spec.free]
    out: list[tuple] = []

    def walk(i, acc, prod):
        if i == len(choices):
            out.append(tuple(acc))
            return
        for d in choices[i]:
            if (device_num // prod) % d == 0:
                walk(i + 1, acc + [d], prod * d)
    walk(0, [], 1)
    if fully_use_devices:
        full = [c for c in out if math.prod(c) == device_num]
        if full:
            return full
    return out


def layouts(spec: OpSpec, cuts: tuple, device_num: int):
    """(input layouts, output layouts) of the op under ``cuts``; None for non-tensor inputs.
    Outputs are partial over the cut contracted letters. An op with a pinned layout
    (``reshard``) has that layout everywhere."""
    if spec.layout is not None:
        if spec.layout.device_num != device_num:
            raise ValueError(f"reshard: layout {spec.layout} has {spec.layout.device_num} "
                             f"devices, the plan has {device_num}")
        return [None if d is None else spec.layout for d in spec.inputs], [spec.layout]
    free = spec.free
    axis = {c: i + 1 for i, c in enumerate(free)}
    cut = dict(zip(free, cuts))
    dev = (device_num // math.prod(cuts),) + tuple(cuts)
    partial = [axis[c] for c in spec.contracted if cut.get(c, 1) > 1]

    def lay(dims, part=()):
        if dims is None:
            return None
        return TensorLayout(dev, [(axis[c],) if cut.get(c, 1) > 1 else () for c in dims],
                            part).normalized()
    return [lay(d) for d in spec.inputs], [lay(d, partial) for d in spec.outputs]


def to_strategy(spec: OpSpec, cuts: tuple) -> tuple:
    """MindSpore's form: one tuple of cuts per tensor input."""
    cut = dict(zip(spec.free, cuts))
    return tuple(tuple(cut.get(c, 1) for c in dims) for dims in spec.inputs if dims is not None)


def from_strategy(spec: OpSpec, strategy, device_num: int, where: str = "") -> tuple:
    """The cuts of a MindSpore strategy, checked against the op's rules."""
    where = where or spec.op
    tensors = [d for d in spec.inputs if d is not None]
    strategy = tuple(tuple(int(v) for v in s) for s in strategy)
    if len(strategy) != len(tensors):
        raise ValueError(f"{where}: strategy {strategy} has {len(strategy)} entries, the "
                         f"operator has {len(tensors)} tensor inputs")
    cut: dict[str, int] = {}
    for i, (dims, s) in enumerate(zip(tensors, strategy)):
        if len(dims) != len(s):
            raise ValueError(f"{where}: strategy {s} for input {i} has {len(s)} entries, "
                             f"the input has {len(dims)} dimensions")
        for d, (c, v) in enumerate(zip(dims, s)):
            if v < 1:
                raise ValueError(f"{where}: strategy entries must be positive, got {s}")
            if c is None or c in spec.fixed:
                if v != 1:
                    raise ValueError(f"{where}: dimension {d} of input {i} cannot be cut "
                                     f"(strategy {s}); {spec.op} needs it whole")
                continue
            if cut.setdefault(c, v) != v:
                raise ValueError(f"{where}: strategy {strategy} cuts one dimension two ways "
                                 f"({cut[c]} and {v}); inputs sharing a dimension must agree")
    cuts = tuple(cut.get(c, 1) for c in spec.free)
    if device_num % math.prod(cuts):
        raise ValueError(f"{where}: strategy {strategy} needs {math.prod(cuts)} devices, "
                         f"which does not divide device_num={device_num}")
    sizes = spec.sizes()
    for c, v in zip(spec.free, cuts):
        if any(n % v for n in sizes[c]):
            raise ValueError(f"{where}: strategy {strategy} cuts a dimension of size "
                             f"{sizes[c]} into {v}, which does not divide it")
    return cuts
