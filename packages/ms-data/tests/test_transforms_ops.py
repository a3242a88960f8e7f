"""transforms: TypeCast, OneHot (MindSpore's smoothing values), Fill, Concatenate, Mask,
Slice, Duplicate, composition and plain callables."""

import numpy as np
import pytest

import ms_tensor
from ms_data import transforms as T
from ms_data import vision as V


def test_typecast_accepts_ms_tensor_and_numpy_dtypes():
    out = T.TypeCast(ms_tensor.int32)(np.int64(3))
    assert isinstance(out, np.ndarray) and out.dtype == np.int32 and out == 3
    assert T.TypeCast(np.float16)(np.array([1.5])).dtype == np.float16
    assert T.TypeCast("float64").batch_call(np.arange(3)).dtype == np.float64
    with pytest.raises(TypeError, match="TypeCast: data_type"):
        T.TypeCast(object())


def test_onehot_values_from_mindspore():
    assert T.OneHot(5)(np.array(2)).tolist() == [0, 0, 1, 0, 0]
    assert T.OneHot(5)(np.array(2, np.int32)).dtype == np.int32
    smooth = T.OneHot(5, 0.1)(np.array(2))
    np.testing.assert_allclose(smooth, [0.02, 0.02, 0.92, 0.02, 0.02], rtol=1e-6)
    assert T.OneHot(5).batch_call(np.array([1, 3])).tolist() == [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0]]
    with pytest.raises(ValueError, match=r"OneHot: class indices must be in \[0, 5\)"):
        T.OneHot(5)(np.array(7))


def test_fill_concatenate_mask_slice_duplicate():
    assert T.Fill(7)(np.zeros((2, 2), np.int8)).tolist() == [[7, 7], [7, 7]]
    cat = T.Concatenate(0, prepend=np.array([0]), append=np.array([9, 9]))
    assert cat(np.array([1, 2])).tolist() == [0, 1, 2, 9, 9]
    assert cat.batch_call(np.array([[1, 2], [3, 4]])).tolist() == [[0, 1, 2, 9, 9],
                                                                  [0, 3, 4, 9, 9]]
    assert T.Mask(T.Relational.GT, 1)(np.array([0, 1, 2])).tolist() == [False, False, True]
    assert T.Slice(slice(1, 3))(np.arange(5)).tolist() == [1, 2]
    assert T.Slice(None, 0).batch_call(np.arange(8).reshape(2, 2, 2)).tolist() == [[0, 2],
                                                                                  [4, 6]]
    a, b = T.Duplicate()(np.array([1, 2]))
    assert a.tolist() == b.tolist() == [1, 2] and a is not b
    with pytest.raises(ValueError, match=r"Concatenate: expected a 1-D row, got shape \(1, 2\)"):
        cat(np.zeros((1, 2)))


def test_compose_with_callables_and_flags():
    comp = T.Compose([V.Rescale(2.0, 0.0), lambda x: x + 1])
    assert comp(np.array([[1]], np.uint8)).tolist() == [[3.0]]
    assert comp.python_callable and not comp.gil_free and not comp.is_random
    assert T.PyFunc(lambda x: x).batch_call is None
    batched = T.Compose([V.Rescale(2.0, 0.0), V.HWC2CHW()])
    x = np.ones((2, 3, 4, 1), np.uint8)
    assert batched.batch_call(x).shape == (2, 1, 3, 4)
    with pytest.raises(TypeError, match="Compose: transforms must be a non-empty list"):
        T.Compose([])


def test_random_apply_and_choice():
    x = np.arange(40, dtype=np.float32).reshape(40, 1, 1)
    out = T.RandomApply([V.Rescale(-1.0, 0.0)], prob=0.5).batch_call(x, np.random.default_rng(0))
    changed = out[:, 0, 0] != x[:, 0, 0]
    assert changed[1:].any() and (~changed[1:]).any()
    np.testing.assert_array_equal(out[changed], -x[changed])
    pick = T.RandomChoice([V.Rescale(2.0, 0.0), V.Rescale(3.0, 0.0)])
    out = pick.batch_call(x, np.random.default_rng(0))[1:, 0, 0] / x[1:, 0, 0]
    assert set(out.tolist()) == {2.0, 3.0}
    with pytest.raises(ValueError, match="RandomApply: prob"):
        T.RandomApply([V.HWC2CHW()], prob=1.5)
