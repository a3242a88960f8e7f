"""dtype helpers, depend/partial and the sequence combinators, as MindSpore 2.10 runs them."""

import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Tensor, float16, float32, int32

X = Tensor(np.array([1.5, -2.0], np.float32))
I = Tensor(np.array([1, 2], np.int32))


def test_dtype_helpers():
    assert ops.dtype(X) == float32 and ops.DType()(I) == int32
    assert ops.is_tensor(X) and not ops.is_tensor(1.0)
    assert ops.type_as(X, I).dtype == int32
    assert ops.scalar_cast(2.7, int32) == 2 and ops.scalar_to_tensor(3).dtype == float32
    cast = ops.mixed_precision_cast(float16, {"a": X, "b": (I, 3)})
    assert cast["a"].dtype == float16 and cast["b"][0].dtype == int32 and cast["b"][1] == 3
    assert ops.move_to(X, "CPU") is X
    with pytest.raises(ValueError, match="move_to: microspore keeps tensors in host memory"):
        ops.move_to(X, "Ascend")
    with pytest.raises(TypeError, match="scalar_to_tensor: input_x must be a Python number"):
        ops.scalar_to_tensor("3")


def test_depend_partial_and_combinators():
    assert ops.depend(X, I) is X
    np.testing.assert_array_equal(ops.partial(ops.add, X)(I).asnumpy(), [2.5, 0.0])
    out = ops.HyperMap()(ops.add, (X, (X, X)), (I, (I, I)))
    np.testing.assert_array_equal(out[1][0].asnumpy(), [2.5, 0.0])
    neg = ops.Map()(ops.neg, (X, I))
    np.testing.assert_array_equal(neg[1].asnumpy(), [-1, -2])
    with pytest.raises(ValueError, match="HyperMap: the sequences have different lengths"):
        ops.HyperMap()(ops.add, (X,), (I, I))


def test_multitype_func_graph_dispatches_on_types():
    add = ops.MultitypeFuncGraph("add")

    @add.register("Number", "Number")
    def _numbers(a, b):
        return a + b

    @add.register("Tensor", "Tensor")
    def _tensors(a, b):
        return ops.add(a, b)

    assert add(1, 2) == 3
    np.testing.assert_array_equal(add(X, X).asnumpy(), [3.0, -4.0])
    with pytest.raises(TypeError, match=r"add: no implementation registered for argument "
                                        r"types \(str, int\)"):
        add("a", 1)
