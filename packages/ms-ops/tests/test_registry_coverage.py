"""Every operator ms-ops registers is complete: a CPU kernel, and a gradient rule or a
stated reason not to have one."""

import pytest

from ms_tensor import registry

OPS = [e.value for e in registry.load().entries("primitive") if e.plugin == "ops"]


def test_ms_ops_registers_at_least_120_operators():
    assert len(OPS) >= 120


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_operator_has_a_cpu_kernel(op):
    assert registry.load().kernel(op, "CPU") is not None


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_differentiable_operator_has_a_gradient_rule_and_others_have_none(op):
    has_bprop = registry.load().bprop(op) is not None
    assert has_bprop == op.differentiable, (
        f"{op.name}: differentiable={op.differentiable} but gradient rule "
        f"{'registered' if has_bprop else 'missing'}")


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_operator_is_reachable_by_its_class_name(op):
    assert registry.load().lookup("function", op.name) is op.primitive
