"""Sorting, masks, spacing, shape queries, div's rounding modes, pad's copying modes and
norms, against numpy (and the values real MindSpore 2.10 printed, where they differ from
numpy's conventions). Gradients of the operators are checked by the registry's suites on
their samples; those of the compositions here."""

import math

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_tensor import Tensor, bool_, float32, float64, int32, int64

RNG = np.random.default_rng(0)
S = np.array([[3., 1., 2.], [0., 5., 4.]], np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_a_stable_numpy_sort(dtype, axis, descending):
    x = RNG.integers(0, 4, (3, 5)).astype(dtype)  # many ties: stability shows
    values, indices = ops.sort(Tensor(x), axis=axis, descending=descending)
    key = -x.astype(np.int64) if descending else x
    want = np.argsort(key, axis=axis, kind="stable")
    assert indices.dtype == int32 and values.dtype == Tensor(x).dtype
    np.testing.assert_array_equal(indices.asnumpy(), want)
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(x, want, axis))


def test_sort_forms_agree_with_mindspore():
    x = Tensor(S)
    np.testing.assert_array_equal(ops.Sort(axis=-1, descending=True)(x)[1].asnumpy(),
                                  [[0, 2, 1], [1, 2, 0]])
    np.testing.assert_array_equal(x.sort()[0].asnumpy(), [[1, 2, 3], [0, 4, 5]])
    np.testing.assert_array_equal(ops.argsort(x, axis=0, descending=True).asnumpy(),
                                  [[0, 1, 1], [1, 0, 0]])
    np.testing.assert_array_equal(ops.msort(x).asnumpy(), np.sort(S, 0))


def test_topk_forms_and_dims():
    x = Tensor(S)
    v, i = ops.topk(x, 2)
    np.testing.assert_array_equal(v.asnumpy(), [[3, 2], [5, 4]])
    np.testing.assert_array_equal(i.asnumpy(), [[0, 2], [1, 2]])
    v, i = ops.topk(x, 1, dim=0, largest=False)
    np.testing.assert_array_equal(v.asnumpy(), [[0, 1, 2]])
    np.testing.assert_array_equal(i.asnumpy(), [[1, 0, 0]])
    v, i = ops.TopK(sorted=True)(x, 3)
    np.testing.assert_array_equal(v.asnumpy(), -np.sort(-S, 1))
    np.testing.assert_array_equal(x.topk(1)[1].asnumpy(), [[0], [1]])


def test_topk_and_sort_errors_name_the_operator():
    with pytest.raises(ValueError, match="TopK: k=4 is larger"):
        ops.topk(Tensor(S), 4)
    with pytest.raises(ValueError, match="topk: k=3 is larger"):
        ops.topk(Tensor(S), 3, dim=0, largest=False)
    with pytest.raises(TypeError, match="input_x"):
        ops.sort(Tensor(np.array([1 + 1j], np.complex64)))


def test_topk_gradient_reaches_the_chosen_entries():
    g = grad(lambda x: ops.topk(x, 2)[0].sum() * 2)(Tensor(S))
    np.testing.assert_array_equal(g.asnumpy(), [[2, 0, 2], [0, 2, 2]])


MASK = np.array([[True, False, True], [False, False, True]])


def test_masked_fill_broadcasts_and_keeps_the_dtype():
    out = ops.masked_fill(Tensor(S), Tensor(MASK), 9.0)
    np.testing.assert_array_equal(out.asnumpy(), np.where(MASK, 9, S))
    row = Tensor(np.array([True, False, False]))
    out = Tensor(S).masked_fill(row, Tensor(-1.0, float64))
    assert out.dtype == float32
    np.testing.assert_array_equal(out.asnumpy(), np.where([True, False, False], -1, S))
    ints = ops.masked_fill(Tensor(np.arange(3, dtype=np.int32)), row, 7)
    assert ints.dtype == int32 and ints.asnumpy().tolist() == [7, 1, 2]


def test_masked_fill_rejects_a_non_bool_mask():
    with pytest.raises(TypeError, match="MaskedFill: mask must be Bool"):
        ops.masked_fill(Tensor(S), Tensor(MASK.astype(np.int32)), 0.0)


def test_nonzero_argwhere_masked_select_count_nonzero():
    x = np.array([[0, 1], [2, 0]], np.float32)
    np.testing.assert_array_equal(ops.nonzero(Tensor(x)).asnumpy(), np.argwhere(x))
    assert ops.nonzero(Tensor(x)).dtype == int64
    rows, cols = ops.nonzero(Tensor(x), as_tuple=True)
    np.testing.assert_array_equal(rows.asnumpy(), [0, 1])
    np.testing.assert_array_equal(cols.asnumpy(), [1, 0])
    np.testing.assert_array_equal(ops.argwhere(Tensor(x)).asnumpy(), np.argwhere(x))
    np.testing.assert_array_equal(ops.masked_select(Tensor(S), Tensor(MASK)).asnumpy(), S[MASK])
    row = np.array([True, False, True])
    np.testing.assert_array_equal(ops.masked_select(Tensor(S), Tensor(row)).asnumpy(),
                                  S[np.broadcast_to(row, S.shape)])
    assert int(ops.count_nonzero(Tensor(S)).asnumpy()) == 5
    np.testing.assert_array_equal(ops.count_nonzero(Tensor(S), 1).asnumpy(), [3, 2])


def test_masked_select_gradient_lands_on_the_selected_entries():
    g = grad(lambda x: ops.masked_select(x, Tensor(MASK)).sum() * 3)(Tensor(S))
    np.testing.assert_array_equal(g.asnumpy(), np.where(MASK, 3, 0))


@pytest.mark.parametrize("start,stop,num", [(1.0, 10.0, 5), (-2.0, 3.0, 1), (0.0, 1.0, 7)])
def test_linspace_matches_numpy(start, stop, num):
    out = ops.linspace(start, stop, num)
    assert out.dtype == float32 and out.shape == (num,)
    np.testing.assert_allclose(out.asnumpy(), np.linspace(start, stop, num), rtol=1e-6)
    prim = ops.LinSpace()(Tensor(start, float32), Tensor(stop, float32), num)
    np.testing.assert_array_equal(prim.asnumpy(), out.asnumpy())


def test_linspace_gradient_and_errors():
    ga, gb = grad(lambda a, b: (ops.linspace(a, b, 4) * Tensor(np.arange(4.0), float32)).sum(),
                  grad_position=(0, 1))(Tensor(1.0, float32), Tensor(3.0, float32))
    np.testing.assert_allclose([ga.asnumpy(), gb.asnumpy()], [4 / 3, 14 / 3], rtol=1e-6)
    with pytest.raises(ValueError, match="LinSpace: start must be a 0-d tensor"):
        ops.linspace(Tensor(np.zeros(2, np.float32)), 1.0, 3)
    with pytest.raises(ValueError, match="num"):
        ops.linspace(0.0, 1.0, 0)
    np.testing.assert_allclose(ops.logspace(0, 2, 3).asnumpy(), [1, 10, 100])


def test_shape_queries_are_python_values():
    x = Tensor(S)
    assert ops.Shape()(x) == ops.shape(x) == (2, 3)
    assert ops.rank(x) == ops.Rank()(x) == 2
    assert ops.size(x) == ops.Size()(x) == ops.numel(x) == 6
    np.testing.assert_array_equal(ops.dyn_shape(x).asnumpy(), [2, 3])
    with pytest.raises(TypeError, match="shape: input must be a Tensor"):
        ops.shape(S)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32])
def test_div_rounding_modes(dtype):
    x = np.array([7, -7, 5, -9], dtype)
    y = np.array([2, 2, -3, 4], dtype)
    floor = ops.div(Tensor(x), Tensor(y), rounding_mode="floor")
    trunc = ops.div(Tensor(x), Tensor(y), rounding_mode="trunc")
    assert floor.dtype == trunc.dtype == Tensor(x).dtype
    np.testing.assert_array_equal(floor.asnumpy(), np.floor_divide(x, y))
    np.testing.assert_array_equal(trunc.asnumpy(), np.trunc(x / y).astype(dtype))
    exact = Tensor(x).div(Tensor(y))
    assert exact.dtype == float32
    np.testing.assert_allclose(exact.asnumpy(), x / y, rtol=1e-6)


def test_div_rounding_broadcasts_and_rejects_unknown_modes():
    out = ops.div(Tensor(np.array([[7.0], [-7.0]], np.float32)), Tensor(np.array([2.0, 3.0])),
                  rounding_mode="trunc")
    np.testing.assert_array_equal(out.asnumpy(), np.trunc(np.array([[7.0], [-7.0]]) / [2, 3]))
    with pytest.raises(ValueError, match="rounding_mode must be None, 'floor' or 'trunc'"):
        ops.div(Tensor(S), Tensor(S), rounding_mode="round")


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
@pytest.mark.parametrize("padding", [(1, 1), (1, 2, 0, 1), (2, 0, 1, 1, 1, 0)])
def test_pad_copying_modes_match_numpy(mode, np_mode, padding):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    pairs = [(0, 0)] * (3 - len(padding) // 2) + [tuple(padding[i:i + 2])
                                                  for i in range(0, len(padding), 2)][::-1]
    np.testing.assert_array_equal(ops.pad(Tensor(x), padding, mode=mode).asnumpy(),
                                  np.pad(x, pairs, mode=np_mode))


def test_pad_reflect_values_of_mindspore_and_errors():
    x = Tensor(np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3))
    np.testing.assert_array_equal(ops.pad(x, (1, 1, 1, 1), mode="reflect").asnumpy()[0, 0, 0],
                                  [4, 3, 4, 5, 4])
    with pytest.raises(ValueError, match="reflect mode needs each padding smaller"):
        ops.pad(x, (3, 3, 0, 0), mode="reflect")
    with pytest.raises(ValueError, match="cannot crop"):
        ops.pad(x, (-1, 0), mode="replicate")
    with pytest.raises(ValueError, match="pad: mode must be one of"):
        ops.pad(x, (1, 1), mode="symmetric")
    with pytest.raises(ValueError, match="value is only used by mode 'constant'"):
        ops.pad(x, (1, 1), mode="reflect", value=1.0)


def test_pad_reflect_gradient_adds_the_copies_back():
    x = np.arange(3, dtype=np.float32)
    g = grad(lambda t: ops.pad(t, (2, 1), mode="reflect").sum())(Tensor(x))
    # reflect of [a b c] by (2, 1) is [c b a b c b]: a once, b three times, c twice
    np.testing.assert_array_equal(g.asnumpy(), [1, 3, 2])


@pytest.mark.parametrize("ord,dim", [(None, None), (1, 1), (3, 0), (math.inf, 1),
                                     (-math.inf, 0), (0, 1), ("fro", None), (1, None),
                                     (-1, None), (math.inf, None), (-math.inf, None)])
def test_norm_matches_numpy(ord, dim):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    want = np.linalg.norm(x, ord, dim) if dim is not None or ord is not None \
        else np.linalg.norm(x.ravel())
    np.testing.assert_allclose(ops.norm(Tensor(x), ord, dim).asnumpy(), want, rtol=1e-5)


def test_norm_dtypes_gradient_and_spectral_orders():
    assert ops.norm(Tensor(np.array([3, 4], np.int32))).asnumpy() == 5
    assert ops.norm(Tensor(np.array([3, 4], np.int32))).dtype == float32
    assert Tensor(S).norm(keepdim=True, dim=1).shape == (2, 1)
    np.testing.assert_allclose(Tensor(S).norm(2, 1, True).asnumpy(),
                               np.linalg.norm(S, 2, 1, keepdims=True), rtol=1e-6)
    g = grad(lambda t: ops.norm(t))(Tensor(S))
    np.testing.assert_allclose(g.asnumpy(), S / np.linalg.norm(S), rtol=1e-5)
    for ord in ("nuc", 2, -2):  # from the singular values, differentiable through Svd
        np.testing.assert_allclose(ops.norm(Tensor(S), ord).asnumpy(), np.linalg.norm(S, ord),
                                   rtol=1e-5)
    with pytest.raises(ValueError, match="matrix norm's ord"):
        ops.norm(Tensor(S), 0)
    assert ops.masked_fill(Tensor(MASK), Tensor(MASK), False).dtype == bool_
