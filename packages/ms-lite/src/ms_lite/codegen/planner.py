"""The offline memory plan: every tensor's offset in one arena, decided before any code runs.

A tensor is live from the step that writes it to the last step that reads it (both
inclusive, so an operator's output never shares bytes with an input it still reads).
Elementwise operators may write over an input that dies at them (``aliases``): the two
become one buffer. Placement is best-fit (MindSpore Micro's memory manager) and
first-fit-lowest, each over several orders (by size, by lifetime, by start, seeded
shuffles); the smallest arena wins. First-fit-lowest over *every* order reaches the
optimum (place the buffers of an optimal packing by increasing offset: each lands at or
below its optimal offset), which is what ``optimal_arena`` does for tests on small graphs.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass, field

__all__ = ["Buffer", "Placement", "MemoryPlan", "MemoryBudgetError", "plan_memory",
           "optimal_arena", "parse_size"]


class MemoryBudgetError(ValueError):
    """The planned arena does not fit the RAM budget; the message names the peak tensors."""


@dataclass(frozen=True)
class Buffer:
    """One tensor to place: ``size`` bytes, live over steps ``start..end`` inclusive."""
    name: str
    size: int
    start: int
    end: int

    def overlaps(self, other: Buffer) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass(frozen=True)
class Placement:
    """Where one tensor lives; ``alias_of`` names the tensor whose bytes it reuses."""
    name: str
    offset: int
    size: int
    start: int
    end: int
    alias_of: str | None = None


@dataclass
class MemoryPlan:
    """Offsets of every tensor, the arena size, and how it was found."""
    placements: dict[str, Placement]
    arena_size: int
    alignment: int
    strategy: str
    tried: int = 0
    sum_of_sizes: int = field(default=0)

    def offset(self, name: str) -> int:
        return self.placements[name].offset

    def report(self) -> str:
        """A table a person reads: tensor, offset, size, live range, shared bytes."""
        rows = sorted(self.placements.values(), key=lambda p: (p.offset, p.start, p.name))
        width = max([len(p.name) for p in rows] + [6])
        lines = [f"arena: {self.arena_size} bytes (alignment {self.alignment}; sum of "
                 f"tensors {self.sum_of_sizes}; strategy {self.strategy}, best of "
                 f"{self.tried} placements)",
                 f"{'tensor':<{width}}  {'offset':>8}  {'size':>8}  live",
                 ]
        for p in rows:
            alias = f"  (in place of {p.alias_of})" if p.alias_of else ""
            lines.append(f"{p.name:<{width}}  {p.offset:>8}  {p.size:>8}  "
                         f"[{p.start}, {p.end}]{alias}")
        return "\n".join(lines) + "\n"


_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1 << 20, "MB": 1 << 20,
          "MIB": 1 << 20}


def parse_size(text) -> int:
    """Bytes from ``8192``, ``"8KB"``, ``"8k"``, ``"1.5MB"`` (binary units).

    >>> parse_size("8KB"), parse_size(512), parse_size("1M")
    (8192, 512, 1048576)
    """
    if isinstance(text, int):
        return text
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
    if not m or m.group(2).upper() not in _UNITS:
        raise ValueError(f"a RAM budget is a number of bytes with an optional unit "
                         f"(B, KB, MB), e.g. '8KB'; got {text!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


def _merge_aliases(buffers: list[Buffer], aliases: dict[str, str]):
    """One buffer per alias group (an output written over a dying input), the group's
    members, and the root each member reuses."""
    by_name = {b.name: b for b in buffers}
    root = {b.name: b.name for b in buffers}
    for out, src in aliases.items():
        if out not in by_name or src not in by_name:
            raise ValueError(f"alias {out!r} -> {src!r} names an unknown tensor")
        if by_name[out].size > by_name[src].size:
            raise ValueError(f"alias {out!r} ({by_name[out].size} bytes) cannot reuse "
                             f"{src!r} ({by_name[src].size} bytes)")
        root[out] = root[src]
    for name in root:  # chains: a -> b -> c
        while root[root[name]] != root[name]:
            root[name] = root[root[name]]
    groups: dict[str, list[Buffer]] = {}
    for b in buffers:
        groups.setdefault(root[b.name], []).append(b)
    merged = [Buffer(r, max(m.size for m in ms), min(m.start for m in ms),
                     max(m.end for m in ms)) for r, ms in groups.items()]
    return merged, groups, root


def _place(order: list[Buffer], best_fit: bool) -> tuple[dict[str, int], int]:
    """Offsets for ``order`` placed one by one: into the smallest gap that fits among
    the live-overlapping buffers already placed (best fit), or the lowest one."""
    placed: list[tuple[Buffer, int]] = []
    offsets: dict[str, int] = {}
    top = 0
    for b in order:
        busy = sorted((o, o + p.size) for p, o in placed if p.overlaps(b))
        choice, choice_gap, cursor = None, None, 0
        for lo, hi in busy:
            gap = lo - cursor
            if gap >= b.size and (choice is None or (best_fit and gap < choice_gap)):
                choice, choice_gap = cursor, gap
                if not best_fit:
                    break
            cursor = max(cursor, hi)
        if choice is None:
            choice = cursor
        offsets[b.name] = choice
        placed.append((b, choice))
        top = max(top, choice + b.size)
    return offsets, top


def _orders(buffers: list[Buffer], shuffles: int, seed: int):
    yield "size", sorted(buffers, key=lambda b: (-b.size, b.start, b.name))
    yield "lifetime", sorted(buffers, key=lambda b: (b.start - b.end, -b.size, b.name))
    yield "area", sorted(buffers, key=lambda b: (-(b.end - b.start + 1) * b.size, b.name))
    yield "start", sorted(buffers, key=lambda b: (b.start, -b.size, b.name))
    rng = random.Random(seed)
    for i in range(shuffles):
        order = list(buffers)
        rng.shuffle(order)
        yield f"shuffle{i}", order


def plan_memory(buffers, *, aliases=None, alignment: int = 16, shuffles: int = 64,
                seed: int = 0, budget: int | None = None) -> MemoryPlan:
    """Place ``buffers`` in one arena; ``aliases`` maps an output to the input it may
    overwrite (elementwise, same size or smaller, the input dying at that step).

    Raises MemoryBudgetError if the arena exceeds ``budget`` bytes.

    >>> p = plan_memory([Buffer("a", 100, 0, 1), Buffer("b", 40, 1, 2), Buffer("c", 100, 2, 3)])
    >>> p.arena_size, p.offset("a") == p.offset("c")
    (160, True)
    """
    buffers = list(buffers)
    if alignment < 1:
        raise ValueError(f"alignment must be a positive number of bytes, got {alignment}")
    for b in buffers:
        if b.size < 0 or b.start > b.end:
            raise ValueError(f"buffer {b.name!r}: size {b.size} and live range "
                             f"[{b.start}, {b.end}] are not a valid tensor lifetime")
    merged, groups, root = _merge_aliases(buffers, dict(aliases or {}))
    sized = [Buffer(b.name, _align(b.size, alignment), b.start, b.end) for b in merged]
    best = None
    tried = 0
    for name, order in _orders(sized, shuffles if len(sized) > 1 else 0, seed):
        for best_fit in (True, False):
            offsets, top = _place(order, best_fit)
            tried += 1
            if best is None or top < best[1]:
                best = (offsets, top, f"{'best' if best_fit else 'first'}-fit by {name}")
    offsets, top, strategy = best if best else ({}, 0, "empty")
    placements = {}
    for b in buffers:
        r = root[b.name]
        placements[b.name] = Placement(b.name, offsets[r], b.size, b.start, b.end,
                                       None if r == b.name else r)
    plan = MemoryPlan(placements, top, alignment, strategy, tried,
                      sum(_align(b.size, alignment) for b in merged))
    if budget is not None and top > budget:
        raise MemoryBudgetError(_budget_message(merged, groups, top, budget))
    return plan


def _budget_message(merged: list[Buffer], groups: dict, arena: int, budget: int) -> str:
    """Names the tensors live at the step with the most live bytes (an in-place group
    counted once, by its first tensor, the others named beside it)."""
    steps = range(min(b.start for b in merged), max(b.end for b in merged) + 1)
    peak = max(steps, key=lambda s: sum(b.size for b in merged if b.start <= s <= b.end))
    live = sorted((b for b in merged if b.start <= peak <= b.end), key=lambda b: -b.size)

    def describe(b: Buffer) -> str:
        others = [m.name for m in groups[b.name] if m.name != b.name]
        return f"{b.name} ({b.size} B" + (f", shared in place with {', '.join(others)})"
                                          if others else ")")
    names = ", ".join(describe(b) for b in live)
    return (f"the planned arena needs {arena} bytes, over the RAM budget of {budget} bytes; "
            f"at the peak (step {peak}) these tensors are live: {names}")


def optimal_arena(buffers, alignment: int = 1) -> int:
    """The smallest arena for ``buffers`` (no aliases), by trying every order: for tests
    on small graphs only (n! placements)."""
    sized = [Buffer(b.name, _align(b.size, alignment), b.start, b.end) for b in buffers]
    if len(sized) > 8:
        raise ValueError(f"optimal_arena tries every order; {len(sized)} buffers is too many")
    return min((_place(list(o), best_fit=False)[1] for o in itertools.permutations(sized)),
               default=0)
