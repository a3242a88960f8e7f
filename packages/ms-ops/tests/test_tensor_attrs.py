"""Storage and placement attributes of a Tensor, as MindSpore 2.10 answers them on CPU."""

import numpy as np
import pytest

from ms_tensor import Parameter, Tensor


def test_placement_and_storage_answers():
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert t.data is t and t.value() is t and t.device == "CPU"
    assert (t.has_init, t.init, t.is_init(), t.is_pinned(), t.is_shared()) == (
        False, None, False, False, False)
    assert t.stride() == [3, 1] and t.stride(0) == 3 and t.storage_offset() == 0
    assert t.data_ptr() == t.asnumpy().ctypes.data
    assert t.move_to("CPU") is t and t.pin_memory() is t
    with pytest.raises(ValueError, match="move_to: microspore keeps tensors in host memory"):
        t.move_to("Ascend")
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="w")
    assert p.device == "CPU"


def test_itemset_from_numpy_dlpack_and_shifts():
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    t.itemset(4, 9.0)
    t.itemset((0, 0), -1.0)
    np.testing.assert_array_equal(t.asnumpy(), [[-1, 1, 2], [3, 9, 5]])
    one = Tensor(np.array([2.0], np.float32))
    assert one.itemset(7.0).asnumpy().tolist() == [7.0]
    a = np.ones(3)
    shared = Tensor.from_numpy(a)
    a[0] = 5
    assert shared.asnumpy()[0] == 5
    assert Tensor(np.array([1, 2], np.int32)).bitwise_left_shift(1).asnumpy().tolist() == [2, 4]
    assert t.to_dlpack() is not None
