import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ms_ops as ops
from ms_ops.defs import indexing as I
from ms_ops.defs._index import normalize_index
from ms_ops.testing import check_bprop
from ms_tensor import Parameter, Tensor, float32, float64, int32, int64

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)
MASK = X[:, :, 0] > 0

INDICES = {  # name: index into X (numpy semantics)
    "int": 1,
    "neg_int": -1,
    "ints": (1, -2, 3),
    "slice": slice(1, None),
    "neg_step": (slice(None), slice(None, None, -2)),
    "none": (None, 0, None),
    "ellipsis": (Ellipsis, 1),
    "ellipsis_mid": (0, Ellipsis, slice(1, 3)),
    "list": [1, 0, 1],
    "nested_list": [[0, 1], [1, 1]],
    "array": np.array([1, 0, -2]),
    "tensor_int32": Tensor(np.array([1, -1], np.int32)),
    "tensor_0d": Tensor(np.array(1)),
    "mask_full": X > 0,
    "mask_lead": MASK,
    "mask_mid": (slice(None), np.array([True, False, True])),
    "adv_adjacent": (slice(None), [0, 2], [1, 3]),
    "adv_separated": ([0, 1], slice(None), [1, 3]),
    "int_with_array": (0, slice(None), [1, 2]),
    "adv_none_between": ([0], None, [1]),
    "adv_broadcast": ([[0], [1]], [0, 2]),
    "empty_list": [],
    "repeated": [0, 0, 1],
}


def _as_numpy(index):
    def conv(i):
        return i.asnumpy() if isinstance(i, Tensor) else i
    return tuple(conv(i) for i in index) if isinstance(index, tuple) else conv(index)


@pytest.mark.parametrize("name", list(INDICES))
def test_getitem_matches_numpy(name):
    index = INDICES[name]
    want = X[_as_numpy(index)]
    out = Tensor(X)[index]
    assert out.shape == want.shape and out.dtype == float32
    np.testing.assert_array_equal(out.asnumpy(), want)


@pytest.mark.parametrize("name", list(INDICES))
def test_getitem_gradient(name):
    desc, stacked = normalize_index(INDICES[name], X.shape)
    check_bprop(I.TensorGetItem, X.astype(np.float64), stacked, desc)


@pytest.mark.parametrize("name", ["int", "list", "repeated", "mask_mid", "adv_separated"])
def test_getitem_grad_gradient(name):
    desc, stacked = normalize_index(INDICES[name], X.shape)
    dout = RNG.standard_normal(X[_as_numpy(INDICES[name])].shape)
    check_bprop(I.TensorGetItemGrad, dout, stacked, desc, X.shape)


def test_getitem_gradient_adds_up_repeated_positions():
    desc, stacked = normalize_index([0, 0, 1], (3,))
    g = I.TensorGetItemGrad(Tensor(np.ones(3)), Tensor(stacked), desc, (3,))
    assert g.asnumpy().tolist() == [2.0, 1.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(
    st.integers(-4, 3),
    st.slices(4),
    st.none(),
    st.just(Ellipsis),
    st.lists(st.integers(-2, 1), min_size=1, max_size=3),
), max_size=4))
def test_getitem_agrees_with_numpy_or_both_raise(items):
    index = tuple(items)
    try:
        want = X[index]
    except IndexError:
        with pytest.raises(IndexError):
            Tensor(X)[index]
        return
    np.testing.assert_array_equal(Tensor(X)[index].asnumpy(), want)


@pytest.mark.parametrize("index,match", [
    (5, r"TensorGetItem: index 5 is out of bounds for axis 0 with size 2 \(input shape "
        r"\(2, 3, 4\)\)"),
    ((0, 0, -5), "TensorGetItem: index -5 is out of bounds for axis 2 with size 4"),
    ([0, 2], r"TensorGetItem: index 2 is out of bounds for axis 0 with size 2 \(input shape "
             r"\(2, 3, 4\)\)"),
    ((0, 0, 0, 0), r"too many indices for input of shape \(2, 3, 4\): 4 indices for 3 axes"),
    ((Ellipsis, 0, Ellipsis), "an index can only have a single ellipsis"),
    (1.5, "only integers, slices, None, Ellipsis, bool masks"),
    (Tensor([0.0, 1.0]), "must hold integers or bools, got float32"),
    (np.ones((3, 3), bool), r"boolean index of shape \(3, 3\) does not match input shape "
                            r"\(2, 3, 4\) at axes 0..1"),
    (([0, 1], [0, 1, 2]), "shape mismatch: index arrays could not be broadcast together"),
    (True, "a bool scalar index is not supported"),
])
def test_getitem_errors(index, match):
    with pytest.raises(IndexError, match=match):
        Tensor(X)[index]


def test_getitem_iteration_and_views():
    t = Tensor(X)
    rows = list(t)
    assert len(rows) == 2 and rows[1].shape == (3, 4)
    np.testing.assert_array_equal(rows[1].asnumpy(), X[1])
    assert t[0, 1, 2].shape == () and t[0, 1, 2].item() == X[0, 1, 2]


# -- __setitem__ --------------------------------------------------------------------------------
SET_CASES = [  # index, value
    (0, 7.0),
    ((slice(None), 1), np.arange(4, dtype=np.float32)),
    ((Ellipsis, -1), np.float32(-1.0)),
    (X > 0, 0.0),
    ((X > 0), np.arange((X > 0).sum(), dtype=np.float32)),
    (([0, 1], slice(None), [1, 3]), np.ones((2, 3), np.float32)),
    ((None, 1), np.ones((1, 1, 3, 4), np.float32)),
    ((0, [2, 0]), np.array([[5.0], [6.0]], np.float32)),
    ((1, slice(None, None, -1)), 3.0),
]


@pytest.mark.parametrize("index,value", SET_CASES)
def test_setitem_matches_numpy_and_mutates_in_place(index, value):
    t = Tensor(X)
    before = t.asnumpy()
    t[index] = Tensor(value) if isinstance(value, np.ndarray) else value
    want = X.copy()
    want[index] = value
    np.testing.assert_array_equal(t.asnumpy(), want)
    assert t.dtype == float32
    np.testing.assert_array_equal(before, X)  # the old array is left as it was


@pytest.mark.parametrize("index,value", SET_CASES)
def test_setitem_gradient(index, value):
    value = np.asarray(value, np.float64)
    if value.ndim == 0:
        value = value.reshape(())
    desc, stacked = normalize_index(index, X.shape)
    check_bprop(I.TensorSetItem, X.astype(np.float64), value, stacked, desc)


def test_setitem_follows_mindspore_casting_and_order():
    t = Tensor(np.zeros((2, 3), np.int32))
    t[0] = 2.7
    assert t.dtype == int32 and t.asnumpy().tolist() == [[2, 2, 2], [0, 0, 0]]
    d = Tensor(np.zeros(2, np.float64))
    d[0] = 0.1
    assert d.asnumpy()[0] == 0.1  # not float32(0.1)
    dup = Tensor(np.zeros((2, 3), np.float32))
    dup[[0, 0], [1, 1]] = Tensor(np.array([1.0, 2.0], np.float32))
    assert dup.asnumpy().tolist() == [[0, 2, 0], [0, 0, 0]]  # the last write wins
    m = Tensor(np.zeros((2, 3), np.float32))
    m[m > -1] = Tensor(np.arange(1, 7, dtype=np.float32))
    assert m.asnumpy().tolist() == [[1, 2, 3], [4, 5, 6]]


def test_setitem_replaces_the_array_so_views_keep_old_values():
    x = Tensor(np.zeros((2, 3), np.float32))
    y = x.reshape(6)
    x[0, 0] = 5.0
    assert x.asnumpy()[0, 0] == 5.0 and y.asnumpy()[0] == 0.0
    b = ops.broadcast_to(Tensor(np.zeros(3, np.float32)), (2, 3))
    b[1] = 1.0
    assert b.asnumpy().tolist() == [[0, 0, 0], [1, 1, 1]]
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="w")
    p[1] = 4.0
    assert isinstance(p, Parameter) and p.asnumpy().tolist() == [0.0, 4.0]


def test_setitem_errors():
    t = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"TensorSetItem: value shape \(4,\) cannot be broadcast "
                                         r"to the indexed shape \(3,\) of input shape \(2, 3\)"):
        t[0] = Tensor(np.ones(4, np.float32))
    with pytest.raises(IndexError, match="TensorSetItem: index 2 is out of bounds for axis 0 "
                                         "with size 2"):
        t[2] = 1.0
    assert t.asnumpy().sum() == 0  # nothing was written


# -- Gather ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("indices", [np.array([1, 0, 1]), np.array([[0, -1], [1, 0]], np.int32)])
def test_gather_matches_numpy_and_gradient(axis, indices):
    out = ops.gather(Tensor(X), Tensor(indices), axis)
    np.testing.assert_array_equal(out.asnumpy(), np.take(X, indices, axis))
    np.testing.assert_array_equal(ops.Gather()(Tensor(X), Tensor(indices), axis).asnumpy(),
                                  np.take(X, indices, axis))
    check_bprop(I.Gather, X.astype(np.float64), indices, axis)


@pytest.mark.parametrize("axis", [1, 2])
def test_gather_batch_dims_matches_mindspore_and_gradient(axis):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[0, 1], [2, 0]]) if axis == 1 else np.array([[0, 1], [2, 3]])
    out = ops.gather(Tensor(x), Tensor(idx), axis, batch_dims=1)
    want = np.stack([np.take(x[b], idx[b], axis - 1) for b in range(2)])
    np.testing.assert_array_equal(out.asnumpy(), want)
    if axis == 2:  # MindSpore 2.10's values
        assert out.asnumpy().tolist() == [[[0, 1], [4, 5], [8, 9]],
                                          [[14, 15], [18, 19], [22, 23]]]
    check_bprop(I.Gather, x.astype(np.float64), idx, axis, attrs={"batch_dims": 1})


def test_gather_errors():
    with pytest.raises(TypeError, match="Gather: input 'input_indices' has dtype Float32"):
        ops.gather(Tensor(X), Tensor([0.0]), 0)
    with pytest.raises(ValueError, match="Gather: axis 3 is out of range for a 3-d input"):
        ops.gather(Tensor(X), Tensor([0]), 3)
    with pytest.raises(ValueError, match=r"Gather: the first 1 \(batch\) dims of input_params "
                                         r"shape \(2, 3, 4\) and input_indices shape \(3,\)"):
        ops.gather(Tensor(X), Tensor([0, 1, 2]), 1, batch_dims=1)
    # A position out of range is found by the kernel; the error names the operator and shapes.
    with pytest.raises(IndexError, match=r"Gather: index 5 is out of bounds.*\(2, 3, 4\)"):
        ops.gather(Tensor(X), Tensor([5]), 0)


# -- GatherD and TensorScatterElements ---------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_d_matches_numpy_and_gradient(dim):
    x = X[0]
    index = RNG.integers(-x.shape[dim], x.shape[dim], (2, 2))
    out = ops.gather_d(Tensor(x), dim, Tensor(index))
    sub = x[:2, :2] if dim in (-1, 1) else x[:, :2]
    if dim == 0:
        sub = x[:, :2]
        want = np.take_along_axis(sub, index % x.shape[0], 0)
    else:
        sub = x[:2, :]
        want = np.take_along_axis(sub, index % x.shape[1], 1)
    np.testing.assert_array_equal(out.asnumpy(), want)
    assert ops.gather_elements(Tensor(x), dim, Tensor(index)).shape == (2, 2)
    check_bprop(I.GatherD, x.astype(np.float64), dim, index)


def test_gather_d_matches_mindspore_and_errors():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ops.GatherD()(x, 1, Tensor(np.array([[0, 0], [1, 2]]))).asnumpy().tolist() == \
        [[0, 0], [4, 5]]
    assert x.gather_elements(1, Tensor(np.array([[0, -1], [1, 2]]))).asnumpy().tolist() == \
        [[0, 2], [4, 5]]
    with pytest.raises(ValueError, match=r"GatherD: index shape \(3,\) must have the rank of "
                                         r"input shape \(2, 3\)"):
        ops.gather_d(x, 0, Tensor(np.array([0, 1, 0])))


@pytest.mark.parametrize("reduction", ["none", "add"])
@pytest.mark.parametrize("axis", [0, -1])
def test_tensor_scatter_elements_matches_numpy_and_gradient(reduction, axis):
    x = RNG.standard_normal((3, 4))
    indices = np.array([[0, 1, 2, 0], [2, 0, 1, 1]]) if axis == 0 else \
        np.array([[3, 1], [0, 2], [2, 1]])
    updates = RNG.standard_normal(indices.shape)
    out = ops.tensor_scatter_elements(Tensor(x), Tensor(indices), Tensor(updates), axis,
                                      reduction)
    want = x.copy()
    grid = list(np.ogrid[tuple(slice(n) for n in indices.shape)])
    grid[axis] = indices
    if reduction == "add":
        np.add.at(want, tuple(grid), updates)
    else:
        want[tuple(grid)] = updates
    np.testing.assert_allclose(out.asnumpy(), want)
    if reduction == "add" or axis == -1:  # no repeated positions for "none"
        check_bprop(I.TensorScatterElements, x, indices, updates,
                    attrs={"axis": axis, "reduction": reduction})


def test_tensor_scatter_elements_errors():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="TensorScatterElements: reduction must be 'none' or "
                                         "'add', got 'max'"):
        ops.tensor_scatter_elements(x, Tensor([[0]]), Tensor([[1.0]]), 0, "max")
    with pytest.raises(ValueError, match=r"TensorScatterElements: updates shape \(2, 1\) must "
                                         r"equal indices shape \(1, 1\)"):
        ops.tensor_scatter_elements(x, Tensor([[0]]), Tensor([[1.0], [2.0]]))


# -- GatherNd, ScatterNd, TensorScatterUpdate/Add -------------------------------------------------
@pytest.mark.parametrize("indices", [np.array([[0, 1], [1, 2]]), np.array([[1], [0], [1]]),
                                     np.array([[[0, 0, 3]], [[1, -1, 0]]], np.int32)])
def test_gather_nd_matches_numpy_and_gradient(indices):
    out = ops.gather_nd(Tensor(X), Tensor(indices))
    np.testing.assert_array_equal(out.asnumpy(), X[tuple(np.moveaxis(indices, -1, 0))])
    check_bprop(I.GatherNd, X.astype(np.float64), indices)


def test_scatter_ops_match_mindspore():
    out = ops.scatter_nd(Tensor(np.array([[0], [0], [2]])),
                         Tensor(np.array([1.0, 2.0, 3.0], np.float32)), (4,))
    assert out.dtype == float32 and out.asnumpy().tolist() == [3, 0, 3, 0]
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    upd = ops.tensor_scatter_update(x, Tensor(np.array([[0, 1]])), Tensor(np.array([9.0],
                                                                                   np.float32)))
    assert upd.asnumpy().tolist() == [[0, 9, 2], [3, 4, 5]]
    add = ops.tensor_scatter_add(x, Tensor(np.array([[0, 1], [0, 1]])),
                                 Tensor(np.array([9.0, 1.0], np.float32)))
    assert add.asnumpy().tolist() == [[0, 11, 2], [3, 4, 5]]
    assert x.asnumpy().tolist() == [[0, 1, 2], [3, 4, 5]]  # inputs are not changed


def test_scatter_gradients():
    idx = np.array([[0, 1], [1, 2], [0, 1]])
    check_bprop(I.ScatterNd, idx, RNG.standard_normal(3), (2, 3))
    check_bprop(I.ScatterNd, np.array([[1], [0]]), RNG.standard_normal((2, 4)), (3, 4))
    x, upd = RNG.standard_normal((2, 3)), RNG.standard_normal(2)
    check_bprop(I.TensorScatterAdd, x, idx[:2], upd)
    check_bprop(I.TensorScatterUpdate, x, idx[:2], upd)
    check_bprop(I.TensorScatterUpdate, x, np.array([[1]]), RNG.standard_normal((1, 3)))


def test_nd_errors():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"GatherNd: indices shape \(1, 3\) must end in N <= 2"):
        ops.gather_nd(x, Tensor(np.zeros((1, 3), np.int64)))
    with pytest.raises(ValueError, match=r"ScatterNd: updates shape \(3,\) must be \(2,\) for "
                                         r"indices shape \(2, 1\) into shape \(4,\)"):
        ops.scatter_nd(Tensor(np.zeros((2, 1), np.int64)), Tensor(np.ones(3, np.float32)), (4,))
    with pytest.raises(TypeError, match="TensorScatterAdd: updates has dtype Float64, expected "
                                        "Float32 like input_x"):
        ops.tensor_scatter_add(x, Tensor(np.zeros((1, 2), np.int64)), Tensor(np.ones(1)))
    with pytest.raises(TypeError, match="GatherNd: input 'indices' has dtype Float32"):
        ops.gather_nd(x, Tensor(np.zeros((1, 2), np.float32)))


def test_tensor_gather_methods_and_index_dtypes():
    t = Tensor(X)
    np.testing.assert_array_equal(t.gather(Tensor(np.array([1], np.int32)), 1).asnumpy(),
                                  X[:, [1]])
    out = ops.gather(Tensor(X.astype(np.float64)), Tensor(np.array([0], np.uint8)), 0)
    assert out.dtype == float64 and out.shape == (1, 3, 4)
    assert I.TensorGetItem(t, Tensor(np.array([[1]], np.int32)), ("adv",)).dtype == float32
    assert ops.gather_nd(t, Tensor(np.array([[1, 2]], np.int64))).shape == (1, 4)
    assert ops.scatter_nd(Tensor(np.array([[1]], np.int64)), Tensor(np.ones(1, np.int64)),
                          (2,)).dtype == int64
