import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Parameter, Tensor, float32, int32


def test_assign_writes_into_the_variable_and_returns_it():
    p = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="p")
    data = p.asnumpy()
    out = ops.Assign()(p, Tensor(np.arange(6, dtype=np.float64).reshape(2, 3)))
    assert out is p and p.asnumpy() is data and p.dtype == float32
    np.testing.assert_array_equal(data, np.arange(6).reshape(2, 3))


def test_assign_add_and_sub_update_in_place_with_broadcasting_and_scalars():
    step = Parameter(Tensor(np.array([0], np.int32)), name="global_step")
    ops.AssignAdd()(step, 1)
    ops.assign_add(step, 2)
    assert step.dtype == int32 and step.asnumpy().tolist() == [3]
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="p")
    ops.AssignSub()(p, Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [[0, -1, -2], [0, -1, -2]])


def test_assign_rejects_a_value_that_does_not_fit():
    p = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="p")
    with pytest.raises(ValueError, match=r"Assign: value shape \(2, 2, 3\) does not fit "
                                         r"variable shape \(2, 3\)"):
        ops.Assign()(p, Tensor(np.zeros((2, 2, 3), np.float32)))
    with pytest.raises(ValueError, match=r"AssignAdd: variable shape \(2, 3\) and value shape "
                                         r"\(2, 4\) cannot be broadcast"):
        ops.AssignAdd()(p, Tensor(np.zeros((2, 4), np.float32)))
