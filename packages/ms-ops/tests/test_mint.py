"""``mint``: PyTorch-shaped signatures on ms-ops' operators, against numpy. (A sweep of
196 calls against MindSpore 2.10's mint agreed wherever its CPU build has the kernel; most
mint kernels exist only for Ascend there.)"""

import importlib.util

import numpy as np
import pytest

from ms_ops import mint
from ms_tensor import Tensor, float32, int32, int64

RNG = np.random.default_rng(0)
X = (RNG.random((2, 3)) * 0.8 + 0.1).astype(np.float32)
V = np.array([1.0, 2.0, 3.0], np.float32)


def _eq(got, want):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_every_public_name_resolves():
    # erfinv's operator comes from ms-ops-scipy (layer 2), which ms-ops alone lacks
    from_scipy = set() if importlib.util.find_spec("ms_ops_scipy") else {"erfinv"}
    for name in set(mint.__all__) - from_scipy:
        assert callable(getattr(mint, name)), name
    with pytest.raises(AttributeError, match="'mint' has no attribute 'nope'"):
        _ = mint.nope


@pytest.mark.parametrize("name,ref", [("sum", np.sum), ("mean", np.mean), ("prod", np.prod),
                                      ("amax", np.max), ("amin", np.min)])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (0, True), ((0, 1), False)])
def test_reductions_take_dim_and_keepdim(name, ref, dim, keepdim):
    if dim is None and name in ("amax", "amin"):
        got = getattr(mint, name)(Tensor(X))
        _eq(got, ref(X))
        return
    got = getattr(mint, name)(Tensor(X), dim, keepdim)
    _eq(got, ref(X, axis=dim, keepdims=keepdim))


def test_std_var_use_bessels_correction_by_default():
    _eq(mint.std(Tensor(X), 1), X.std(1, ddof=1))
    _eq(mint.var(Tensor(X), 0, correction=0, keepdim=True), X.var(0, keepdims=True))


def test_max_min_forms():
    _eq(mint.max(Tensor(X)), X.max())
    values, indices = mint.max(Tensor(X), 1)
    _eq(values, X.max(1))
    assert indices.dtype == int64 and indices.asnumpy().tolist() == X.argmax(1).tolist()
    _eq(mint.min(Tensor(X), Tensor(V)), np.minimum(X, V))
    assert mint.argmin(Tensor(X), 1).dtype == int64


def test_shape_functions_take_dim():
    _eq(mint.cat([Tensor(X), Tensor(X)], 1), np.concatenate([X, X], 1))
    _eq(mint.stack([Tensor(X), Tensor(X)], 1), np.stack([X, X], 1))
    assert [p.shape for p in mint.split(Tensor(X), 2, 1)] == [(2, 2), (2, 1)]
    _eq(mint.transpose(Tensor(X), 0, 1), X.T)
    b = RNG.random((2, 3, 4)).astype(np.float32)
    _eq(mint.permute(Tensor(b), (2, 0, 1)), b.transpose(2, 0, 1))
    assert mint.flatten(Tensor(b)).shape == (24,)
    assert mint.flatten(Tensor(b), 1).shape == (2, 12)
    _eq(mint.select(Tensor(X), 1, -1), X[:, -1])
    _eq(mint.gather(Tensor(X), 1, Tensor(np.array([[0, 2], [1, 1]]))),
        np.take_along_axis(X, np.array([[0, 2], [1, 1]]), 1))


def test_sorting_gives_int64_indices():
    values, indices = mint.sort(Tensor(X), dim=1, descending=True)
    assert indices.dtype == int64
    _eq(values, -np.sort(-X, 1))
    assert mint.argsort(Tensor(X), 1).asnumpy().tolist() == np.argsort(X, 1).tolist()
    values, indices = mint.topk(Tensor(X), 2)
    assert indices.dtype == int64
    _eq(values, -np.sort(-X, 1)[:, :2])


def test_creation_and_misc():
    assert mint.ones((2, 3)).dtype == float32
    _eq(mint.linspace(0, 1, 5), np.linspace(0, 1, 5))
    assert mint.linspace(0, 4, 5, dtype=int32).dtype == int32
    _eq(mint.diag(Tensor(V), 1), np.diag(V, 1))
    _eq(mint.diag(Tensor(X), 1), np.diag(X, 1))
    a, b = mint.meshgrid(Tensor(V), Tensor(V[:2]))
    assert a.shape == (3, 2) and b.shape == (3, 2)  # PyTorch's default: "ij"
    _eq(mint.mv(Tensor(X), Tensor(V)), X @ V)
    assert mint.item(Tensor(np.float32(2.5))) == 2.5
    assert mint.allclose(Tensor(X), Tensor(X + 1e-9)) is True
    _eq(mint.vdot(Tensor(V), Tensor(V)), 14.0)
    clone = mint.clone(Tensor(X))
    _eq(clone, X)
    assert mint.bitwise_not(Tensor(np.array([3], np.int32))).asnumpy().tolist() == [-4]
    _eq(mint.count_nonzero(Tensor(X), 1), [3, 3])


def test_random_functions_refuse_generator_objects():
    assert mint.rand(2, 3).shape == (2, 3)
    assert mint.randn(4).shape == (4,)
    assert mint.randperm(5).dtype == int64
    with pytest.raises(TypeError, match="mint.rand: generator objects are not supported"):
        mint.rand(2, generator=object())
    with pytest.raises(ValueError, match="mint.normal: give size"):
        mint.normal(0.0, 1.0)
    assert mint.normal(0.0, 1.0, (2, 2)).shape == (2, 2)
