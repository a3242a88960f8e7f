"""A recorder installed before a tape (ms-graph's tracer) keeps seeing every operator
while tapes are active, the backward pass's operators included, and is restored after."""

import numpy as np

from ms_autodiff import grad, recording
from ms_ops.defs import arithmetic
from ms_tensor import Tensor


def test_outer_recorder_sees_forward_and_backward_ops():
    seen = []

    def outer(op, values, attrs, out):
        seen.append(op.name)

    previous = recording.set_recorder(outer)
    try:
        g = grad(lambda x: arithmetic.Mul(x, x))(Tensor(np.array([3.0])))
        assert recording.get_recorder() is outer
    finally:
        recording.set_recorder(previous)
    np.testing.assert_allclose(g.asnumpy(), [6.0])
    assert seen[0] == "Mul"  # the forward
    assert len(seen) >= 3  # and the gradient rule's operators (Mul(dout, x) twice, Add)


def test_outer_recorder_with_nested_tapes():
    seen = []
    previous = recording.set_recorder(lambda op, v, a, o: seen.append(op.name))
    try:
        g2 = grad(grad(lambda x: x * x * x))(Tensor(np.array([2.0])))
    finally:
        recording.set_recorder(previous)
    np.testing.assert_allclose(g2.asnumpy(), [12.0])
    assert seen.count("Mul") > 4


def test_no_recorder_left_behind():
    assert recording.get_recorder() is None
    grad(lambda x: x * x)(Tensor(np.array([1.0])))
    assert recording.get_recorder() is None
