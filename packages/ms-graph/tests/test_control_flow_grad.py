"""Gradients through captured control flow equal PyNative's, for every path taken."""

import numpy as np
import pytest
from ms_graph import jit
from ms_graph.convert import GraphSyntaxError

import ms_autodiff as ad
from ms_ops import functional as F
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

X = np.array([1.0, 2.0, -0.5], np.float32)
Y = np.array([0.5, -1.0, 2.0], np.float32)


def branchy(x, y):
    if x.sum() > 0:
        z = x * y + F.sin(x)
    else:
        z = x * x * y
    return z.sum()


def looped(x, n, y):
    i = 0
    while i < n:
        x = x * 1.5 + F.sin(x) * y
        i = i + 1
    return x.sum()


def assert_grads_equal(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_grad_through_if_follows_the_branch_each_call_takes():
    @jit
    def step(x, y):
        return ad.grad(branchy, grad_position=(0, 1))(x, y)

    for sign in (1, -1, 1, -1):
        x, y = Tensor(sign * X), Tensor(Y)
        assert_grads_equal(step(x, y), ad.grad(branchy, grad_position=(0, 1))(x, y))
    assert (step.misses, step.hits) == (1, 3)  # one graph serves both branches


def test_grad_through_if_reaches_parameters_read_from_the_closure():
    w = Parameter(Tensor(np.array([0.3, -0.2, 0.7], np.float32)), name="w")

    def loss(x):
        if (x * w).sum() > 0:
            out = F.exp(x * w)
        else:
            out = x - w * w
        return out.sum()

    grad_fn = ad.value_and_grad(loss, grad_position=0, weights=[w])
    step = jit(lambda x: grad_fn(x))
    for sign in (1, -1, 1):
        x = Tensor(sign * X)
        (v1, (gx1, (gw1,))), (v2, (gx2, (gw2,))) = step(x), grad_fn(x)
        assert_grads_equal((v1, gx1, gw1), (v2, gx2, gw2))
    assert step.misses == 1


@pytest.mark.parametrize("trips", [0, 1, 3, 5])
def test_grad_through_while_for_any_trip_count(trips):
    @jit
    def step(x, n, y):
        return ad.grad(looped, grad_position=(0, 2))(x, n, y)

    x, y = Tensor(X), Tensor(Y)
    step(x, Tensor(2, mstype.int32), y)  # captured with another trip count
    got = step(x, Tensor(trips, mstype.int32), y)
    assert_grads_equal(got, ad.grad(looped, grad_position=(0, 2))(x, trips, y))
    assert step.misses == 1


def test_grad_through_if_inside_a_while_body():
    def fn(x, n):
        i = 0
        while i < n:
            if x.sum() > 1.0:
                x = x * 0.5
            else:
                x = x * x + 1.0
            i = i + 1
        return x.sum()

    @jit
    def step(x, n):
        return ad.grad(fn)(x, n)

    for trips in (1, 4, 2):
        x = Tensor(X)
        assert_grads_equal(step(x, Tensor(trips, mstype.int32)), ad.grad(fn)(x, trips))
    assert step.misses == 1


def test_second_order_gradient_through_if():
    def fn(x):
        if x.sum() > 0:
            y = x * x * x
        else:
            y = F.sin(x)
        return y.sum()

    def second(x):
        return ad.grad(lambda t: ad.grad(fn)(t).sum())(x)

    step = jit(second)
    for sign in (1, -1):
        x = Tensor(sign * X)
        got, want = step(x), second(x)
        assert_grads_equal(got, want)
    np.testing.assert_allclose(step(Tensor(X)).asnumpy(), 6 * X, rtol=1e-5)
    np.testing.assert_allclose(step(Tensor(-X)).asnumpy(), -np.sin(-X), rtol=1e-5)


def test_second_order_gradient_through_while_is_refused_with_a_reason():
    def fn(x, n):
        while n > 0:
            x = x * x
            n = n - 1
        return x.sum()

    @jit
    def step(x, n):
        def first(t):
            return ad.grad(fn)(t, n).sum()

        return ad.grad(first)(x)

    with pytest.raises(GraphSyntaxError, match="second-order gradient through a "
                                                "tensor-dependent while loop"):
        step(Tensor(X), Tensor(2, mstype.int32))


def test_eager_and_compiled_forward_of_a_differentiated_loop_agree():
    @jit
    def value_and_grads(x, n, y):
        return ad.value_and_grad(looped, grad_position=0)(x, n, y)

    x, y = Tensor(X), Tensor(Y)
    for trips in (3, 0, 2):
        v, g = value_and_grads(x, Tensor(trips, mstype.int32), y)
        v2, g2 = ad.value_and_grad(looped, grad_position=0)(x, trips, y)
        assert_grads_equal((v, g), (v2, g2))
