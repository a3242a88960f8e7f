"""MindSpore's extra dtype names and conversions, ``tensor``/``from_numpy``, and the
random-state functions — values as MindSpore 2.10 prints them."""

import numpy as np
import pytest

from ms_tensor import Tensor, creation, seed
from ms_tensor import dtype as mstype
from ms_tensor import dtype_names as names


def test_aliases_are_mindsporess_choices():
    assert (names.bool, names.byte, names.short, names.int, names.long) == (
        mstype.bool_, mstype.int8, mstype.int16, mstype.int32, mstype.int64)
    assert (names.float, names.ubyte, names.ushort, names.intc, names.uintc) == (
        mstype.float32, mstype.uint8, mstype.uint16, mstype.int32, mstype.uint32)
    assert (names.intp, names.uintp, names.cfloat, names.cdouble) == (
        mstype.int64, mstype.uint64, mstype.complex64, mstype.complex128)


def test_type_conversions():
    assert names.dtype_to_nptype(mstype.float32) is np.float32
    assert names.dtype_to_pytype(mstype.float16) is float
    assert names.dtype_to_pytype(mstype.uint8) is int
    assert names.pytype_to_dtype(float) is mstype.float64
    assert names.pytype_to_dtype(int) is mstype.int64
    assert names.pytype_to_dtype(bool) is mstype.bool_
    assert names.pytype_to_dtype(np.int16) is mstype.int16
    assert names.get_py_obj_dtype(1.0) is mstype.float64
    assert names.get_py_obj_dtype(Tensor(np.ones(2, np.float32))) is mstype.float32
    with pytest.raises(TypeError, match="pytype_to_dtype: no microspore dtype"):
        names.pytype_to_dtype(str)
    with pytest.raises(TypeError, match="dtype_to_nptype: expected a microspore dtype"):
        names.dtype_to_nptype(np.float32)


def test_tensor_copies_and_from_numpy_shares():
    a = np.array([1.0, 2.0])
    copied, shared = creation.tensor(a, mstype.float32), creation.from_numpy(a)
    a[1] = 7.0
    assert copied.asnumpy().tolist() == [1.0, 2.0] and copied.dtype is mstype.float32
    assert shared.asnumpy().tolist() == [1.0, 7.0] and shared.dtype is mstype.float64
    with pytest.raises(ValueError, match="C-contiguous"):
        creation.from_numpy(np.ones((3, 2))[:, 0])
    with pytest.raises(TypeError, match="no MindSpore equivalent"):
        creation.from_numpy(np.array(["a"]))


def test_random_state_replays_the_draws_after_it():
    seed.manual_seed(3)
    assert seed.initial_seed() == 3
    state = seed.get_rng_state()
    first = [seed.next_generator().random() for _ in range(3)]
    seed.set_rng_state(state)
    assert [seed.next_generator().random() for _ in range(3)] == first
    drawn = seed.seed()
    assert seed.initial_seed() == drawn >= 0
    with pytest.raises(ValueError, match="set_rng_state: expected the 2 values"):
        seed.set_rng_state(Tensor(np.zeros(3, np.int64)))
