"""In-place Tensor methods: the same object is updated, the dtype kept, gradients flow
through the write, and a compiled function replays it on every call."""

import numpy as np
import pytest

from ms_autodiff import grad
from ms_tensor import Parameter, Tensor, float32, int32

X = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)
Y = np.array([[0.5, 0.5, 2.0], [1.0, 2.0, 3.0]], np.float32)


@pytest.mark.parametrize("call,want", [
    (lambda t: t.add_(Tensor(Y), alpha=2), X + 2 * Y),
    (lambda t: t.sub_(Tensor(Y)), X - Y),
    (lambda t: t.mul_(Tensor(Y)), X * Y),
    (lambda t: t.div_(Tensor(Y), rounding_mode="floor"), np.floor(X / Y)),
    (lambda t: t.remainder_(Tensor(Y)), np.mod(X, Y)),
    (lambda t: t.clamp_(-1.0, 2.0), np.clip(X, -1, 2)),
    (lambda t: t.exp_(), np.exp(X)),
    (lambda t: t.tanh_(), np.tanh(X)),
    (lambda t: t.sign_(), np.sign(X)),
    (lambda t: t.zero_(), np.zeros_like(X)),
    (lambda t: t.fill_(2.5), np.full_like(X, 2.5)),
    (lambda t: t.copy_(Tensor(Y[0])), np.broadcast_to(Y[0], X.shape)),
    (lambda t: t.index_fill_(1, Tensor(np.array([0, 2])), -1.0),
     np.where(np.isin(np.arange(3), [0, 2]), -1.0, X)),
    (lambda t: t.index_add_(1, Tensor(np.array([0, 2])), Tensor(np.ones((2, 2), np.float32))),
     X + np.array([1, 0, 1])),
    (lambda t: t.scatter_add_(1, Tensor(np.array([[0], [2]])), Tensor(np.array([[9.0], [8.0]]))),
     X + np.array([[9, 0, 0], [0, 0, 8]])),
    (lambda t: t.fill_diagonal_(7.0), np.where(np.eye(2, 3, dtype=bool), 7.0, X)),
    (lambda t: t.addmm_(Tensor(Y), Tensor(np.ones((3, 3), np.float32))),
     X + Y.sum(1, keepdims=True)),
])
def test_in_place_updates_the_same_tensor(call, want):
    t = Tensor(X.copy())
    assert call(t) is t
    assert t.dtype == float32
    np.testing.assert_allclose(t.asnumpy(), want, rtol=1e-6)


def test_dtype_is_kept_and_shapes_must_fit():
    t = Tensor(np.array([1, 2, 3], np.int32))
    t.mul_(2.5)
    assert t.dtype == int32 and t.asnumpy().tolist() == [2, 5, 7]
    with pytest.raises(ValueError, match=r"in-place result shape \(2, 3\) does not fit"):
        Tensor(np.ones(3, np.float32)).add_(Tensor(np.ones((2, 3), np.float32)))


def test_gradient_flows_through_an_in_place_write():
    def f(x):
        y = x * 1.0
        y.mul_(x)  # y = x * x
        return y.sum()

    g = grad(f)(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), 2 * X, rtol=1e-6)


def test_compiled_function_replays_the_write():
    jit = pytest.importorskip("ms_graph").jit

    @jit
    def f(x):
        y = x * 1.0
        y.add_(x)
        return y

    for k in range(3):
        np.testing.assert_allclose(f(Tensor(X + k)).asnumpy(), 2 * (X + k))


def test_random_fills_follow_the_seed_and_bounds():
    from ms_tensor.seed import set_seed

    set_seed(7)
    t = Tensor(np.zeros((1000,), np.float32)).uniform_(2.0, 3.0)
    assert 2.0 <= t.asnumpy().min() and t.asnumpy().max() < 3.0
    n = Tensor(np.zeros((4000,), np.float32)).normal_(1.0, 0.5).asnumpy()
    assert abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    b = Tensor(np.zeros((4000,), np.float32)).bernoulli_(0.25).asnumpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.05
    e = Tensor(np.zeros((4000,), np.float32)).exponential_(2.0).asnumpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.05
    r = Tensor(np.zeros((1000,), np.int32)).random_(3, 7).asnumpy()
    assert r.min() >= 3 and r.max() < 7


def test_requires_grad_on_parameters_only():
    p = Parameter(Tensor(X), name="w")
    assert p.requires_grad_(False) is p and p.requires_grad is False
    with pytest.raises(TypeError, match="only a Parameter carries requires_grad"):
        Tensor(X).requires_grad_()
