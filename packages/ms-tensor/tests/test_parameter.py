import copy
import pickle

import numpy as np
import pytest

import ms_tensor as mt
from ms_tensor import Parameter, ParameterTuple, Tensor


def test_parameter_is_a_named_tensor_that_copies_its_input():
    t = Tensor(np.ones((2, 3), np.float32))
    p = Parameter(t, name="w")
    assert isinstance(p, Tensor)
    assert (p.name, p.shape, p.dtype, p.requires_grad) == ("w", (2, 3), mt.float32, True)
    t.asnumpy()[0, 0] = 5.0
    assert p.asnumpy()[0, 0] == 1.0
    assert p.data is p
    assert type(p.value()) is Tensor and p.value().shape == (2, 3)


@pytest.mark.parametrize("value,dtype", [
    (2.0, mt.float32),
    (2, mt.int32),   # MindSpore makes an int parameter int32, unlike Tensor(2)
    ([1, 2], mt.int64),
    (np.array([1, 2], np.int32), mt.int32),
])
def test_parameter_dtype_from_python_and_numpy_data(value, dtype):
    assert Parameter(value, name="p").dtype is dtype


def test_parameter_rejects_bool_data():
    with pytest.raises(ValueError, match="cannot be a bool"):
        Parameter(True, name="b")


def test_requires_grad_and_default_name():
    p = Parameter(Tensor([1.0]), requires_grad=False)
    assert p.requires_grad is False
    assert p.name == "Parameter"
    p.requires_grad = True
    assert p.requires_grad


def test_repr_matches_mindspore():
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w2", requires_grad=False)
    assert repr(p) == "Parameter (name=w2, shape=(2, 3), dtype=Float32, requires_grad=False)"
    assert str(Parameter(Tensor([1.0]), name="w")) == \
        "Parameter (name=w, shape=(1,), dtype=Float32, requires_grad=True)"


def test_set_data_replaces_values_in_place_and_keeps_dtype():
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
    src = Tensor(np.full((2, 3), 3, np.int32))
    assert p.set_data(src) is p
    assert p.dtype is mt.float32
    np.testing.assert_array_equal(p.asnumpy(), np.full((2, 3), 3.0))
    src.asnumpy()[0, 0] = 0
    assert p.asnumpy()[0, 0] == 3.0
    p.set_data(np.zeros((2, 3)))
    assert p.asnumpy().sum() == 0


def test_set_data_checks_the_shape():
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
    with pytest.raises(ValueError, match=r"'w'.set_data: shape \(3, 2\) does not match .*\(2, 3\)"):
        p.set_data(Tensor(np.ones((3, 2), np.float32)))
    assert p.shape == (2, 3)
    assert p.set_data(Tensor(np.ones((3, 2), np.float32)), slice_shape=True).shape == (3, 2)
    assert Parameter(Tensor(1.0), name="z").set_data(Tensor([1.0, 2.0])).shape == (2,)


def test_clone_is_independent():
    p = Parameter(Tensor([1.0, 2.0]), name="w", requires_grad=False)
    c = p.clone()
    assert c is not p and isinstance(c, Parameter)
    assert (c.name, c.requires_grad, c.shape, c.dtype) == ("w", False, (2,), mt.float32)
    c.set_data(Tensor([5.0, 6.0]))
    assert p.asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="init must be 'same'"):
        p.clone(init="zeros")


def test_parameter_survives_pickle_and_deepcopy():
    p = Parameter(Tensor([1.5]), name="w", requires_grad=False)
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert isinstance(q, Parameter)
        assert (q.name, q.requires_grad, q.asnumpy().tolist()) == ("w", False, [1.5])


def test_parameter_tuple_holds_parameters_only():
    a, b = Parameter(Tensor([1.0]), name="a"), Parameter(Tensor([2.0]), name="b")
    pt = ParameterTuple([a, b])
    assert isinstance(pt, tuple) and pt == (a, b)
    assert ParameterTuple(p for p in (a,)) == (a,)
    with pytest.raises(TypeError, match="every element must be a Parameter, got Tensor"):
        ParameterTuple([a, Tensor([1.0])])


def test_parameter_tuple_clone_prefixes_names():
    pt = ParameterTuple([Parameter(Tensor([1.0]), name="a"), Parameter(Tensor([2.0]), name="b")])
    c = pt.clone("x")
    assert isinstance(c, ParameterTuple)
    assert [p.name for p in c] == ["x.a", "x.b"]
    assert [p.name for p in pt] == ["a", "b"]
    assert all(p is not q for p, q in zip(pt, c))
