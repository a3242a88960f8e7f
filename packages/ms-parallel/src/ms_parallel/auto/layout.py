"""Tensor layouts: how a tensor's slices lie on a device matrix (MindSpore's model).

The ``N`` devices form a *device matrix* (``dev_matrix``, e.g. ``(2, 4)``), ranks numbered
row-major over it. A tensor's *tensor map* says, per tensor dimension, which device-matrix
axes cut it (outer axis first); axes that cut no dimension replicate the tensor. A layout can
also be *partial* over some axes: each rank then holds a summand, and the true value is the
sum over those axes (a MatMul whose inner dimension is cut leaves its output so).

Internally axes are indexed from the left; ``Layout.to_dict`` writes MindSpore's convention
(axes numbered from the right, ``-1`` for a replicated dimension).
"""

from __future__ import annotations

import math
from functools import reduce

__all__ = ["Layout", "TensorLayout", "common_refinement", "strategy_layout"]


class TensorLayout:
    """One tensor's layout.

    Args:
        dev_matrix: sizes of the device-matrix axes; their product is the device count.
        tensor_map: per tensor dimension, the tuple of axes (left-indexed) that cut it.
        partial: axes over which the local values are summands of the true value.

    >>> t = TensorLayout((2, 4), ((0,), ()))
    >>> t.shards, t.slice_shape((8, 6)), t.block(5)
    ((2, 1), (4, 6), (1, 0))
    """

    __slots__ = ("dev_matrix", "tensor_map", "partial", "_key")

    def __init__(self, dev_matrix, tensor_map, partial=()):
        self.dev_matrix = tuple(int(d) for d in dev_matrix)
        self.tensor_map = tuple(tuple(int(a) for a in axes) for axes in tensor_map)
        self.partial = frozenset(int(a) for a in partial)
        self._key = None
        if any(d < 1 for d in self.dev_matrix):
            raise ValueError(f"TensorLayout: device matrix sizes must be positive, got "
                             f"{self.dev_matrix}")
        used = [a for axes in self.tensor_map for a in axes] + sorted(self.partial)
        if len(used) != len(set(used)):
            raise ValueError(f"TensorLayout: a device axis is used twice in tensor map "
                             f"{self.tensor_map} with partial {sorted(self.partial)}")
        if any(not 0 <= a < len(self.dev_matrix) for a in used):
            raise ValueError(f"TensorLayout: tensor map {self.tensor_map} names an axis "
                             f"outside device matrix {self.dev_matrix}")

    # -- sizes ---------------------------------------------------------------------------
    @property
    def device_num(self) -> int:
        return math.prod(self.dev_matrix)

    @property
    def shards(self) -> tuple[int, ...]:
        """How many slices each tensor dimension is cut into."""
        return tuple(math.prod(self.dev_matrix[a] for a in axes) for axes in self.tensor_map)

    def slice_shape(self, shape) -> tuple[int, ...]:
        shape = tuple(shape)
        if len(shape) != len(self.tensor_map):
            raise ValueError(f"TensorLayout: shape {shape} has {len(shape)} dimensions, the "
                             f"tensor map {self.tensor_map} has {len(self.tensor_map)}")
        for n, s in zip(shape, self.shards):
            if n % s:
                raise ValueError(f"TensorLayout: shape {shape} cannot be cut into "
                                 f"{self.shards} equal slices ({n} % {s} != 0)")
        return tuple(n // s for n, s in zip(shape, self.shards))

    # -- ranks ---------------------------------------------------------------------------
    def coords(self, rank: int) -> tuple[int, ...]:
        """The rank's position in the device matrix (row-major)."""
        out = []
        for d in reversed(self.dev_matrix):
            out.append(rank % d)
            rank //= d
        return tuple(reversed(out))

    def block(self, rank: int) -> tuple[int, ...]:
        """Which slice, per tensor dimension, the rank holds."""
        c = self.coords(rank)
        return tuple(reduce(lambda acc, a: acc * self.dev_matrix[a] + c[a], axes, 0)
                     for axes in self.tensor_map)

    def normalized(self) -> TensorLayout:
        """The same layout without axes of size 1."""
        if 1 not in self.dev_matrix:
            return self
        keep = [i for i, d in enumerate(self.dev_matrix) if d > 1]
        new = {a: i for i, a in enumerate(keep)}
        return TensorLayout([self.dev_matrix[a] for a in keep],
                            [tuple(new[a] for a in axes if a in new) for axes in self.tensor_map],
                            [new[a] for a in self.partial if a in new])

    def on(self, dev_matrix) -> TensorLayout:
        """The same layout expressed on a finer device matrix (``common_refinement``)."""
        groups = _split_axes(self.dev_matrix, tuple(dev_matrix))
        if groups is None:
            raise ValueError(f"TensorLayout: device matrix {tuple(dev_matrix)} does not refine "
                             f"{self.dev_matrix}")
        return TensorLayout(dev_matrix, [tuple(f for a in axes for f in groups[a])
                                         for axes in self.tensor_map],
                            [f for a in self.partial for f in groups[a]])

    def key(self):
        if self._key is None:
            n = self.normalized()
            self._key = (n.dev_matrix, n.tensor_map, n.partial)
        return self._key

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorLayout) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        p = f", partial={sorted(self.partial)}" if self.partial else ""
        return f"TensorLayout(dev_matrix={self.dev_matrix}, tensor_map={self.tensor_map}{p})"

    def to_dict(self) -> dict:
        """MindSpore's form: axes numbered from the right, -1 for an uncut dimension."""
        n = len(self.dev_matrix)

        def right(axes):
            if not axes:
                return -1
            return n - 1 - axes[0] if len(axes) == 1 else [n - 1 - a for a in axes]
        return {"device_matrix": list(self.dev_matrix),
                "tensor_map": [right(axes) for axes in self.tensor_map]}


def _boundaries(dev) -> list[int]:
    out, acc = [], 1
    for d in dev:
        acc *= d
        out.append(acc)
    return out


def _split_axes(coarse, fine):
    """For each axis of ``coarse``, the run of ``fine`` axes it is made of, or None."""
    groups, j, acc = [], 0, 1
    for d in coarse:
        run, prod = [], 1
        while prod < d and j < len(fine):
            run.append(j)
            prod *= fine[j]
            j += 1
        if prod != d:
            return None
        groups.append(tuple(run))
        acc *= d
    return groups if j == len(fine) else None


def common_refinement(a, b):
    """The coarsest device matrix refining both (same row-major ranks), or None.

    >>> common_refinement((2, 4), (4, 2)), common_refinement((2, 3), (3, 2))
    ((2, 2, 2), None)
    """
    if math.prod(a) != math.prod(b):
        return None
    cuts = sorted(set(_boundaries(a)) | set(_boundaries(b)))
    out, prev = [], 1
    for c in cuts:
        if c % prev:
            return None
        if c // prev > 1:
            out.append(c // prev)
        prev = c
    return tuple(out)


def strategy_layout(strategy, device_num: int) -> TensorLayout:
    """The layout a tensor strategy such as ``(2, 4)`` gives on ``device_num`` devices:
    the leftover devices (``device_num / prod``) replicate, as MindSpore's repeated axis."""
    strategy = tuple(int(s) for s in strategy)
    cut = math.prod(strategy)
    if any(s < 1 for s in strategy) or device_num % cut:
        raise ValueError(f"strategy {strategy} does not divide {device_num} devices")
    dev = (device_num // cut,) + strategy
    return TensorLayout(dev, [(i + 1,) for i in range(len(strategy))]).normalized()


class Layout:
    """``ms.Layout(device_matrix, alias_name)``: name the device-matrix axes, then call it
    with one alias (or a tuple of aliases, or ``"None"``) per tensor dimension.

    >>> layout = Layout((2, 4), ("dp", "mp"))
    >>> layout("dp", "None").to_dict()
    {'device_matrix': [2, 4], 'tensor_map': [1, -1]}
    """

    def __init__(self, device_matrix, alias_name, rank_list=None):
        self.device_matrix = tuple(int(d) for d in device_matrix)
        self.alias_name = tuple(alias_name)
        if len(self.device_matrix) != len(self.alias_name):
            raise ValueError(f"Layout: {len(self.device_matrix)} device-matrix axes "
                             f"{self.device_matrix} but {len(self.alias_name)} names "
                             f"{self.alias_name}")
        if len(set(self.alias_name)) != len(self.alias_name) or "None" in self.alias_name:
            raise ValueError(f"Layout: alias names must be distinct and not 'None', got "
                             f"{self.alias_name}")
        if rank_list is not None:
            raise NotImplementedError("Layout: rank_list (a custom rank order) is not "
                                      "supported; ranks are numbered row-major")

    def __call__(self, *tensor_map) -> TensorLayout:
        axes = []
        for entry in tensor_map:
            names = entry if isinstance(entry, tuple) else (entry,)
            cut = []
            for name in names:
                if name == "None":
                    continue
                if name not in self.alias_name:
                    raise ValueError(f"Layout: {name!r} is not one of the alias names "
                                     f"{self.alias_name}")
                cut.append(self.alias_name.index(name))
            axes.append(tuple(cut))
        return TensorLayout(self.device_matrix, axes)

    def __repr__(self) -> str:
        return f"Layout({self.device_matrix}, {self.alias_name})"
