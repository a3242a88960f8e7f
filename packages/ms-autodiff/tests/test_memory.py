"""The tape frees what the backward pass no longer needs: nothing survives a ``grad``
call, by reference counting alone (no garbage-collector cycles), over 10,000 steps."""

import gc
import resource
import weakref

import numpy as np
import pytest

import ms_autodiff as ad
import ms_ops as ops
from ms_tensor import Parameter, Tensor


def _max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


@pytest.fixture
def no_gc():
    """Anything freed must be freed by reference counting: the collector is off."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def _model():
    rng = np.random.default_rng(0)
    w = Parameter(Tensor(rng.standard_normal((64, 64))), name="w")
    x = Tensor(rng.standard_normal((8, 64)))
    seen = []

    def loss(a):
        h = ops.tanh(ops.matmul(a, w))
        out = (h * h).mean()
        seen.extend(weakref.ref(t) for t in (h, out))
        return out

    return loss, x, w, seen


def test_nothing_survives_a_grad_call(no_gc):
    loss, x, w, seen = _model()
    ad.grad(loss, grad_position=0, weights=[w])(x)
    assert x._node is None and w._node is None
    assert seen and all(r() is None for r in seen), "intermediate tensors outlived grad"


def test_values_returned_by_value_and_grad_carry_no_tape(no_gc):
    loss, x, w, _ = _model()
    value, (gx, (gw,)) = ad.value_and_grad(loss, grad_position=0, weights=[w])(x)
    for t in (value, gx, gw, x, w):
        assert t._node is None


def test_vjp_frees_its_tape_with_its_function(no_gc):
    loss, x, _, seen = _model()
    out, fn = ad.vjp(loss, x)
    fn(Tensor(np.array(1.0)))
    assert seen[0]() is not None  # fn may be called again: it keeps the tape
    del out, fn
    assert all(r() is None for r in seen)


def test_ten_thousand_steps_do_not_grow_memory(no_gc):
    loss, x, w, seen = _model()
    step = ad.grad(loss, grad_position=0, weights=[w])
    for _ in range(100):  # warm caches (dispatch plans, numpy pools)
        step(x)
    objects = len(gc.get_objects())
    rss = _max_rss_mib()
    for _ in range(10_000):
        seen.clear()
        step(x)
    # A leak of one 32 KiB gradient array per step would be over 300 MiB.
    assert _max_rss_mib() - rss < 32
    assert len(gc.get_objects()) - objects < 200


@pytest.mark.parametrize("order", [2, 3])
def test_higher_order_steps_do_not_grow_memory(no_gc, order):
    loss, x, w, seen = _model()
    step = loss
    for _ in range(order):
        step = ad.grad(lambda a, f=step: f(a).sum())
    for _ in range(20):
        step(x)
    objects = len(gc.get_objects())
    for _ in range(500):
        seen.clear()
        step(x)
    assert len(gc.get_objects()) - objects < 200
