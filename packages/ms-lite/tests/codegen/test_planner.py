"""The offline memory planner: no two live tensors share bytes, the arena is never above
the sum of the tensors, and it stays close to the optimum on small graphs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ms_lite.codegen.lifetimes import Step, inplace_candidates, lifetimes
from ms_lite.codegen.planner import (
    Buffer,
    MemoryBudgetError,
    _place,
    optimal_arena,
    parse_size,
    plan_memory,
)

# Measured over 3,000 random graphs of up to 7 tensors: at most 1.025 x the optimum (1.35
# with the four fixed orders alone, without the seeded shuffles).
FACTOR = 1.25


@st.composite
def dags(draw, max_nodes=12):
    """A random schedule: each step reads one or two earlier tensors, writes one."""
    n = draw(st.integers(1, max_nodes))
    sizes = {"in": draw(st.integers(1, 512))}
    steps = []
    for i in range(n):
        names = list(sizes)
        k = draw(st.integers(1, min(2, len(names))))
        ins = draw(st.lists(st.sampled_from(names), min_size=k, max_size=k, unique=True))
        out = f"t{i}"
        sizes[out] = draw(st.integers(1, 512))
        steps.append(Step(ins, [out], inplace=draw(st.booleans())))
    outputs = [f"t{n - 1}"]
    return steps, sizes, outputs


def _check_no_overlap(plan, buffers):
    root = {n: p.alias_of or n for n, p in plan.placements.items()}
    ps = list(plan.placements.values())
    for i, a in enumerate(ps):
        assert a.offset % plan.alignment == 0
        assert a.offset + a.size <= plan.arena_size
        for b in ps[i + 1:]:
            live = a.start <= b.end and b.start <= a.end
            bytes_meet = a.offset < b.offset + b.size and b.offset < a.offset + a.size
            if live and bytes_meet:
                # Only an in-place pair may share, and only at the one step where the
                # input dies and the output is born.
                assert root[a.name] == root[b.name], (a, b)
                assert a.end == b.start or b.end == a.start, (a, b)


@settings(max_examples=150, deadline=None)
@given(dags(), st.sampled_from([1, 4, 16]))
def test_planner_never_overlaps_live_tensors_and_beats_the_sum(dag, alignment):
    steps, sizes, outputs = dag
    buffers = lifetimes(steps, sizes, ["in"], outputs)
    aliases = inplace_candidates(steps, buffers, keep=["in"])
    plan = plan_memory(buffers, aliases=aliases, alignment=alignment)
    _check_no_overlap(plan, buffers)
    assert plan.arena_size <= sum(-(-s // alignment) * alignment for s in sizes.values())
    assert plan.arena_size >= max(-(-s // alignment) * alignment for s in sizes.values())


@settings(max_examples=120, deadline=None)
@given(dags(max_nodes=6))
def test_planner_is_within_the_stated_factor_of_the_optimum(dag):
    steps, sizes, outputs = dag
    buffers = lifetimes(steps, sizes, ["in"], outputs)
    plan = plan_memory(buffers, alignment=1)
    best = optimal_arena(buffers)
    assert best <= plan.arena_size <= FACTOR * best


def test_trying_several_orders_beats_best_fit_by_size_alone():
    # Best-fit by decreasing size (MindSpore Micro's order) needs 11 bytes here; the
    # optimum is 8, and the planner, trying other orders too, finds it.
    bufs = [Buffer("a", 3, 1, 2), Buffer("b", 4, 3, 3), Buffer("c", 4, 1, 1),
            Buffer("d", 3, 2, 3), Buffer("e", 1, 1, 2)]
    assert plan_memory(bufs, alignment=1, shuffles=0).arena_size == 8
    assert optimal_arena(bufs) == 8
    assert _place(sorted(bufs, key=lambda b: -b.size), best_fit=True)[1] == 11


def test_inplace_output_reuses_the_dying_input():
    steps = [Step(["x"], ["c"]), Step(["c"], ["r"], inplace=True), Step(["r"], ["y"])]
    sizes = {"x": 64, "c": 64, "r": 64, "y": 16}
    buffers = lifetimes(steps, sizes, ["x"], ["y"])
    aliases = inplace_candidates(steps, buffers, keep=["x"])
    assert aliases == {"r": "c"}
    plan = plan_memory(buffers, aliases=aliases, alignment=16)
    assert plan.offset("r") == plan.offset("c")
    assert plan.placements["r"].alias_of == "c"
    assert "in place of c" in plan.report()


def test_inplace_is_refused_when_the_input_is_read_later():
    steps = [Step(["x"], ["c"]), Step(["c"], ["r"], inplace=True), Step(["c", "r"], ["y"])]
    buffers = lifetimes(steps, {"x": 8, "c": 8, "r": 8, "y": 8}, ["x"], ["y"])
    assert inplace_candidates(steps, buffers, keep=["x"]) == {}


def test_report_lists_offset_size_and_live_range():
    plan = plan_memory([Buffer("a", 10, 0, 1), Buffer("b", 20, 1, 2)], alignment=8)
    text = plan.report()
    assert "arena: 40 bytes" in text
    assert "[0, 1]" in text and "[1, 2]" in text


def test_budget_failure_names_the_peak_tensors():
    bufs = [Buffer("conv1_out", 4704, 1, 2), Buffer("pool1_out", 1176, 2, 3),
            Buffer("x", 4096, 0, 1)]
    with pytest.raises(MemoryBudgetError, match=r"8192 bytes.*conv1_out \(4704 B\).*x "
                                                  r"\(4096 B\)"):
        plan_memory(bufs, alignment=4, budget=parse_size("8KB"))


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="'8 potatoes'"):
        parse_size("8 potatoes")
    with pytest.raises(ValueError, match="'z'.*written twice"):
        lifetimes([Step([], ["z"]), Step([], ["z"])], {"z": 4})
    with pytest.raises(ValueError, match="reads tensor 'q' before"):
        lifetimes([Step(["q"], ["z"])], {"q": 4, "z": 4})
    with pytest.raises(ValueError, match="live range"):
        plan_memory([Buffer("a", 4, 3, 1)])
