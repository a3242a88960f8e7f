"""In-place scatters into Parameters and the out-of-place index writes, against numpy and
MindSpore 2.10's answers on the same inputs."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_autodiff.testing import check_grad
from ms_tensor import Parameter, Tensor, int32, int64

BASE = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
IDX = np.array([0, 2], np.int32)
UPD = np.array([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]], np.float32)
RNG = np.random.default_rng(0)


def _param():
    return Parameter(Tensor(BASE.copy()), name="p")


def test_scatter_add_and_update_write_into_the_parameter():
    p = _param()
    out = ops.scatter_add(p, Tensor(IDX), Tensor(UPD))
    assert out is p
    want = BASE.copy()
    want[[0, 2]] += UPD
    np.testing.assert_array_equal(p.asnumpy(), want)
    p = _param()
    ops.ScatterUpdate()(p, Tensor(IDX), Tensor(UPD))
    np.testing.assert_array_equal(p.asnumpy()[[0, 2]], UPD)
    p = _param()  # repeated indices accumulate, for 2-D indices too
    ops.ScatterAdd()(p, Tensor(np.array([[0, 0], [2, 2]], np.int32)), Tensor(np.ones((2, 2, 3))))
    np.testing.assert_array_equal(p.asnumpy()[[0, 2]], BASE[[0, 2]] + 2)
    with pytest.raises(ValueError, match=r"ScatterAdd: updates shape \(3, 3\) must be \(2, 3\)"):
        ops.scatter_add(_param(), Tensor(IDX), Tensor(np.ones((3, 3), np.float32)))
    with pytest.raises(IndexError, match=r"ScatterUpdate: indices must lie in \[0, 3\)"):
        ops.scatter_update(_param(), Tensor(np.array([0, 3], np.int32)), Tensor(UPD))


def test_scatter_nd_and_index_add():
    p = _param()
    ops.scatter_nd_add(p, Tensor(np.array([[0, 1], [2, 2]], np.int32)),
                       Tensor(np.array([5.0, 7.0], np.float32)))
    want = BASE.copy()
    want[0, 1] += 5
    want[2, 2] += 7
    np.testing.assert_array_equal(p.asnumpy(), want)
    p = _param()
    ops.ScatterNdUpdate()(p, Tensor(np.array([[0], [2]], np.int32)), Tensor(UPD))
    np.testing.assert_array_equal(p.asnumpy()[[0, 2]], UPD)
    p = _param()
    cols = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    ops.index_add(p, Tensor(IDX), Tensor(cols), 1)
    want = BASE.copy()
    want[:, [0, 2]] += cols
    np.testing.assert_array_equal(p.asnumpy(), want)
    p = _param()
    ops.IndexAdd(axis=0)(p, Tensor(np.array([0, 0], np.int32)), Tensor(UPD))
    np.testing.assert_array_equal(p.asnumpy()[0], BASE[0] + UPD.sum(0))


def test_out_of_place_writes_leave_the_input_and_pass_gradients():
    x = Tensor(BASE)
    want = BASE.copy()
    want[[0, 2]] += UPD
    np.testing.assert_array_equal(ops.InplaceAdd((0, 2))(x, Tensor(UPD)).asnumpy(), want)
    np.testing.assert_array_equal(ops.inplace_update(x, Tensor(UPD), Tensor(IDX)).asnumpy()[2],
                                  UPD[1])
    np.testing.assert_array_equal(x.asnumpy(), BASE)
    filled = ops.index_fill(x, 1, Tensor(IDX), 0.5).asnumpy()
    np.testing.assert_array_equal(filled[:, [0, 2]], 0.5)
    np.testing.assert_array_equal(filled[:, 1], BASE[:, 1])
    m = np.array([[True, False, True], [False, True, False], [True, True, False]])
    src = np.arange(9, dtype=np.float32) + 100
    got = x.masked_scatter(Tensor(m), Tensor(src)).asnumpy()
    want = BASE.copy()
    want[m] = src[:m.sum()]
    np.testing.assert_array_equal(got, want)
    check_grad(lambda a, b: ops.slice_scatter(a, b, 1, 1, 2), RNG.standard_normal((3, 3)),
               RNG.standard_normal((3, 1)))
    check_grad(lambda a, b: ops.diagonal_scatter(a, b, 1), RNG.standard_normal((3, 3)),
               RNG.standard_normal((2,)))


def test_diagonal_select_slice_scatter_match_numpy():
    x = Tensor(BASE)
    got = ops.diagonal_scatter(x, Tensor(np.array([0.1, 0.2], np.float32)), 1).asnumpy()
    want = BASE.copy()
    want[[0, 1], [1, 2]] = [0.1, 0.2]
    np.testing.assert_allclose(got, want)
    cube = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    got = ops.diagonal_scatter(Tensor(cube), Tensor(np.zeros((3, 2), np.float32)), 0, 0, 2)
    want = cube.copy()
    for k in range(2):
        want[k, :, k] = 0
    np.testing.assert_allclose(got.asnumpy(), want)
    got = ops.select_scatter(x, Tensor(np.array([0.1, 0.2, 0.3], np.float32)), 0, 1).asnumpy()
    np.testing.assert_allclose(got[1], [0.1, 0.2, 0.3])
    got = ops.slice_scatter(x, Tensor(np.zeros((2, 3), np.float32)), 0, 0, 3, 2).asnumpy()
    np.testing.assert_array_equal(got, [[0, 0, 0], [4, 5, 6], [0, 0, 0]])
    with pytest.raises(ValueError, match=r"diagonal_scatter: src shape \(3,\) must be \(2,\)"):
        ops.diagonal_scatter(x, Tensor(np.zeros(3, np.float32)), 1)


def test_index_put_fill_diagonal_triangles_unravel():
    x = Tensor(BASE)
    rows, cols = Tensor(np.array([0, 2], np.int32)), Tensor(np.array([1, 1], np.int32))
    vals = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(ops.IndexPut()(x, vals, (rows, cols)).asnumpy()[[0, 2], 1],
                                  [1, 2])
    np.testing.assert_array_equal(ops.IndexPut(1)(x, vals, (rows, cols)).asnumpy()[[0, 2], 1],
                                  [3, 10])
    tall = ops.FillDiagonal(9.0, True)(Tensor(np.zeros((7, 3), np.float32))).asnumpy()
    want = np.zeros((7, 3), np.float32)
    np.fill_diagonal(want, 9.0, wrap=True)
    np.testing.assert_array_equal(tall, want)
    t = ops.tril_indices(3, 3)
    assert t.dtype == int64
    np.testing.assert_array_equal(t.asnumpy(), np.stack(np.tril_indices(3, 0, 3)))
    t = ops.TrilIndices(4, 3, -1)()
    assert t.dtype == int32
    np.testing.assert_array_equal(t.asnumpy(), np.stack(np.tril_indices(4, -1, 3)))
    np.testing.assert_array_equal(ops.triu_indices(3, 4, 1).asnumpy(),
                                  np.stack(np.triu_indices(3, 1, 4)))
    out = ops.UnravelIndex()(Tensor(np.array([5, 7], np.int32)), Tensor(np.array([3, 4], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), [[1, 1], [1, 3]])
    assert ops.is_nonzero(Tensor([3.0])) is True
    with pytest.raises(ValueError, match="is_nonzero: input must have exactly one element"):
        ops.is_nonzero(Tensor([1.0, 2.0]))
    np.testing.assert_array_equal(ops.scatter(x, 1, Tensor(np.array([[0], [2], [1]])),
                                              Tensor(np.array([[9.0], [8.0], [7.0]], np.float32)))
                                  .asnumpy(), [[9, 2, 3], [4, 5, 8], [7, 7, 9]])


def test_index_fill_gradient_reaches_only_the_kept_entries():
    g = grad(lambda t: ops.index_fill(t, 0, Tensor(np.array([1])), 0.0).sum())(Tensor(BASE))
    np.testing.assert_array_equal(g.asnumpy(), [[1, 1, 1], [0, 0, 0], [1, 1, 1]])
