"""The gradient checkers catch what they are for: a wrong rule, a false claim of
non-differentiability, an operator whose samples check nothing."""

import numpy as np
import pytest

import ms_autodiff as ad
from ms_autodiff.testing import check_grad, check_op_gradients
from ms_ops.defs.arithmetic import Mul
from ms_ops.infer import same_as
from ms_ops.opdef import FLOATS, Arg, OpDef
from ms_tensor import registry
from ms_tensor.hookspecs import hookimpl

X = np.array([[0.3, -1.2], [0.8, 2.0]])

Square = OpDef("TestSquare", (Arg("x"),), infer=same_as(0))
Frozen = OpDef("TestFrozen", (Arg("x"),), infer=same_as(0), differentiable=False)
Floorish = OpDef("TestFloorish", (Arg("x"),), infer=same_as(0), differentiable=False)


class _Plugin:
    """Square with a wrong gradient (x instead of 2x); Frozen claims no gradient but is
    x * 3; Floorish really has none."""

    @hookimpl
    def ms_register_ops(self, registry):
        registry.add_ops(Square, Frozen, Floorish)


Square.kernel("CPU", dtypes=FLOATS)(np.square)
Square.bprop(lambda x, out, dout: (Mul(dout, x),))
Frozen.kernel("CPU", dtypes=FLOATS)(lambda x: x * 3)
Floorish.kernel("CPU", dtypes=FLOATS)(np.floor)


@pytest.fixture(scope="module")
def plugin():
    registry.register_plugin(_Plugin(), "autodiff-testing")
    yield
    registry.unregister_plugin("autodiff-testing")


def samples(rng):
    yield (X,), {}


def test_check_grad_passes_a_right_gradient():
    got = check_grad(lambda a, b: (a * b, a - b), X, X.T)
    assert len(got) == 2


def test_check_grad_catches_a_wrong_custom_rule():
    wrong = ad.custom_bprop(lambda x, out, dout: (dout * x,))(lambda x: x * x)
    with pytest.raises(AssertionError, match="gradient of input 0"):
        check_grad(wrong, X)


def test_check_op_gradients_catches_a_wrong_rule(plugin):
    with pytest.raises(AssertionError, match=r"TestSquare sample 0 .*gradient of input 'x'"):
        check_op_gradients(Square, samples)


def test_check_op_gradients_catches_a_false_nondiff_claim(plugin):
    with pytest.raises(AssertionError, match="marked differentiable=False, but input 'x'"):
        check_op_gradients(Frozen, samples)


def test_check_op_gradients_accepts_a_true_nondiff_claim(plugin):
    check_op_gradients(Floorish, lambda rng: iter([((X + 0.5,), {})]))


def test_check_op_gradients_needs_a_differentiable_input(plugin):
    with pytest.raises(AssertionError, match="no sample has a float input"):
        check_op_gradients(Square, [((3.0,), {})])


def test_check_op_gradients_needs_samples(plugin):
    with pytest.raises(AssertionError, match="yielded nothing"):
        check_op_gradients(Floorish, [])
