import pickle

import numpy as np
import pytest

import ms_tensor as mt
from ms_tensor import Tensor


@pytest.mark.parametrize("data,dtype,shape", [
    ([1, 2], mt.int64, (2,)),            # Python ints become int64
    ([1.0], mt.float32, (1,)),           # Python floats become float32
    ([1, 2.5], mt.float32, (2,)),
    ((1, 2), mt.int64, (2,)),
    ([[1], [2]], mt.int64, (2, 1)),
    ([True, False], mt.bool_, (2,)),
    ([True, 1], mt.int64, (2,)),
    (2, mt.int64, ()),
    (2.5, mt.float32, ()),
    (True, mt.bool_, ()),
    ([], mt.float32, (0,)),
    (1 + 2j, mt.complex64, ()),
    (np.array([1, 2], np.int32), mt.int32, (2,)),      # numpy arrays keep their dtype
    (np.array([1.0], np.float64), mt.float64, (1,)),
    (np.array([1.0], np.float16), mt.float16, (1,)),
    (np.float64(1.5), mt.float64, ()),
    (np.int8(3), mt.int8, ()),
], ids=repr)
def test_construction_defaults_follow_mindspore(data, dtype, shape):
    t = Tensor(data)
    assert t.dtype is dtype
    assert t.shape == shape


def test_explicit_dtype_converts():
    assert Tensor([1.7, 2.2], mt.int32).asnumpy().tolist() == [1, 2]
    assert Tensor([1, 2], mt.float32).dtype is mt.float32
    assert Tensor(np.array([1.5], np.float32), mt.bfloat16).dtype is mt.bfloat16
    assert Tensor(np.array([1, 2], np.int64), dtype=mt.float16).asnumpy().dtype == np.float16


def test_construction_copies_numpy_and_tensor_input():
    a = np.array([1.0, 2.0], np.float32)
    t = Tensor(a)
    a[0] = 9.0
    assert t.asnumpy()[0] == 1.0
    u = Tensor(t)
    t.asnumpy()[1] = 7.0
    assert u.asnumpy()[1] == 2.0
    assert u.dtype is mt.float32


def test_shape_dtype_init_builds_through_a_callable():
    def init(arr):
        arr[...] = np.arange(arr.size).reshape(arr.shape)

    t = Tensor(shape=(2, 3), dtype=mt.float16, init=init)
    assert t.dtype is mt.float16 and t.shape == (2, 3)
    np.testing.assert_array_equal(t.asnumpy(), np.arange(6).reshape(2, 3))
    assert Tensor(shape=4, dtype=mt.int32).asnumpy().tolist() == [0, 0, 0, 0]
    assert Tensor(shape=(2,)).dtype is mt.float32


@pytest.mark.parametrize("kwargs,err,match", [
    ({}, ValueError, "give input_data, or shape and dtype"),
    ({"input_data": [1.0], "shape": (1,)}, ValueError, "only used when input_data is None"),
    ({"shape": (2,), "dtype": mt.float32, "init": "ones"}, TypeError, "needs ms-nn"),
    ({"shape": (2,), "dtype": mt.float32, "init": 3}, TypeError, "must be an Initializer"),
    ({"input_data": "abc"}, TypeError, "got str"),
    ({"input_data": [[1, 2], [3]]}, ValueError, "cannot build a tensor from list"),
    ({"input_data": np.array(["a"])}, TypeError, "no MindSpore equivalent"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_construction_errors_say_what_was_wrong(kwargs, err, match):
    with pytest.raises(err, match=match):
        Tensor(**kwargs)


def test_attributes():
    t = Tensor(np.zeros((2, 3, 4), np.float32))
    assert (t.ndim, t.size, t.itemsize, t.nbytes) == (3, 24, 4, 96)
    assert t.dim() == 3 and t.numel() == 24
    assert t.strides == (48, 16, 4)


def test_asnumpy_shares_memory_on_cpu():
    t = Tensor(np.array([1.0, 2.0], np.float32))
    assert t.asnumpy() is t.asnumpy()
    assert t.numpy() is t.asnumpy()
    t.asnumpy()[0] = 5.0
    assert t.item(0) == 5.0


def test_array_protocol():
    t = Tensor(np.array([1.0, 2.0], np.float32))
    a = np.asarray(t)
    assert a.dtype == np.float32 and np.shares_memory(a, t.asnumpy())
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert not np.shares_memory(np.array(t, copy=True), t.asnumpy())
    np.testing.assert_array_equal(np.sqrt(np.asarray(t) ** 2), [1.0, 2.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.bool_])
def test_dlpack_round_trip_without_copy(dtype):
    t = Tensor(np.arange(6).reshape(2, 3).astype(dtype))
    a = np.from_dlpack(t)
    assert a.dtype == dtype and a.shape == (2, 3)
    assert np.shares_memory(a, t.asnumpy())
    assert t.__dlpack_device__() == (1, 0)  # kDLCPU, device 0


def test_len_and_iter_need_a_dimension():
    assert len(Tensor([[1, 2], [3, 4], [5, 6]])) == 3
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d Tensor"):
        len(Tensor(1))
    with pytest.raises(TypeError, match="iteration over a 0-d Tensor"):
        iter(Tensor(1.0)).__next__()


def test_scalar_conversions():
    assert bool(Tensor([1])) is True and bool(Tensor(0.0)) is False
    assert int(Tensor([2.7])) == 2
    assert float(Tensor(2)) == 2.0 and isinstance(float(Tensor(2)), float)
    assert complex(Tensor(1 + 2j)) == 1 + 2j
    assert Tensor([[3.5]]).item() == 3.5
    assert Tensor([[1, 2]]).tolist() == [[1, 2]]
    assert f"{Tensor(2.5):.2f}" == "2.50"


def test_scalar_conversions_reject_many_elements():
    with pytest.raises(ValueError, match=r"truth value of a Tensor of shape \(2,\) is ambiguous"):
        bool(Tensor([1, 2]))
    with pytest.raises(ValueError, match=r"only a tensor with one element.*shape \(2,\)"):
        int(Tensor([1, 2]))
    with pytest.raises(ValueError, match="one element"):
        float(Tensor(np.zeros((0,))))


def test_index_protocol_accepts_integer_tensors_only():
    assert [10, 20, 30][Tensor(1)] == 20
    assert [10, 20, 30][Tensor(np.array([2], np.int32))] == 30
    assert list(range(5))[Tensor(1):Tensor(3)] == [1, 2]
    with pytest.raises(TypeError, match=r"only integer Tensors .* got Float32 of shape \(\)"):
        [1, 2][Tensor(1.0)]
    with pytest.raises(TypeError, match=r"got Int64 of shape \(2,\)"):
        [1, 2][Tensor([0, 1])]


def test_copy_set_dtype_and_assign_value():
    t = Tensor([1.0, 2.0])
    c = t.copy()
    c.asnumpy()[0] = 9.0
    assert t.asnumpy()[0] == 1.0
    assert t.set_dtype(mt.float16) is t and t.dtype is mt.float16
    t.assign_value(Tensor([[1, 2, 3]]))
    assert t.shape == (1, 3) and t.dtype is mt.int64


def test_pickle_keeps_dtype_and_values():
    t = Tensor(np.array([[1.5, -2.0]], np.float16))
    u = pickle.loads(pickle.dumps(t))
    assert u.dtype is mt.float16
    np.testing.assert_array_equal(u.asnumpy(), t.asnumpy())


def test_wrap_and_is_tensor():
    a = np.ones(3, np.float32)
    t = mt.wrap(a)
    assert t.asnumpy() is a
    assert mt.is_tensor(t) and not mt.is_tensor(a)


def test_tensors_hash_by_identity():
    a, b = Tensor([1.0]), Tensor([1.0])
    assert len({a, b}) == 2
