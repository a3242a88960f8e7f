"""``ms_autodiff.recompute``: equal gradients, a shorter tape, a replayed random state,
in-place updates applied once, and clear errors."""

import numpy as np
import pytest

import ms_autodiff as ad
import ms_ops as ops
from ms_autodiff.recompute import recompute, recomputing
from ms_autodiff.tape import Tape
from ms_ops.defs.assign import AssignAdd
from ms_ops.defs.nn_misc import Dropout
from ms_tensor import Parameter, Tensor, seed
from ms_tensor.tensor import array_of

RNG = np.random.default_rng(0)
W1 = Parameter(Tensor(RNG.standard_normal((16, 64)).astype(np.float32)), name="w1")
W2 = Parameter(Tensor(RNG.standard_normal((64, 16)).astype(np.float32)), name="w2")
X = Tensor(RNG.standard_normal((8, 16)).astype(np.float32))


def block(x):
    h = ops.tanh(ops.matmul(x, W1))
    return ops.matmul(h * h + 1.0, W2)


def loss(x, marked):
    y = recompute(block, x, weights=[W1, W2], name="block") if marked else block(x)
    return (ops.sin(y)).sum()


def test_gradients_equal_the_plain_pass():
    plain = ad.grad(lambda x: loss(x, False), 0, [W1, W2])(X)
    marked = ad.grad(lambda x: loss(x, True), 0, [W1, W2])(X)
    for a, b in zip([plain[0], *plain[1]], [marked[0], *marked[1]]):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-5)


def _held(marked):
    """(nodes, bytes of the arrays the tape keeps) after the forward pass."""
    with Tape() as tape:
        x = Tensor(array_of(X))
        tape.watch(x)
        tape.watch(W1)
        tape.watch(W2)
        loss(x, marked)
        arrays = {id(a): a.nbytes for n in tape.nodes for a in n.arrays if a is not None}
        return len(tape.nodes), sum(arrays.values())


def test_the_tape_keeps_the_inputs_not_the_activations():
    n_plain, b_plain = _held(False)
    n_marked, b_marked = _held(True)
    assert n_marked < n_plain
    # the (8, 64) activations inside the block are gone: three of them, 2 KiB each
    assert b_plain - b_marked >= 3 * 8 * 64 * 4


def test_the_forward_runs_again_only_under_differentiation():
    calls = []

    def counted(x):
        calls.append(1)
        return block(x)

    recompute(counted, X, weights=[W1, W2])
    assert len(calls) == 1  # no tape: runs as written
    ad.grad(lambda x: recompute(counted, x, weights=[W1, W2]).sum())(X)
    assert len(calls) == 3  # the first run, then the rerun in the backward pass


def test_random_operators_draw_the_same_numbers_in_the_rerun():
    def noisy(x):
        return Dropout(x * 3.0, keep_prob=0.5)[0]

    for seeded in (True, False):
        if seeded:
            seed.set_seed(7)
        value, g = ad.value_and_grad(lambda x: recompute(noisy, x).sum())(X)
        # the gradient is 3 / keep_prob where an element was kept: only the forward pass's
        # own mask gives back the forward's value
        assert np.isclose(float(value.asnumpy()),
                          float((X.asnumpy() * g.asnumpy()).sum()), rtol=1e-5)
    seed.set_rng_state(Tensor(np.array([-1, 0], np.int64)))


def test_seeded_random_numbers_continue_as_without_recompute():
    def noisy(x):
        return Dropout(x, keep_prob=0.5)[0]

    def run(marked):
        seed.set_seed(3)
        f = (lambda x: recompute(noisy, x)) if marked else noisy
        first = ad.grad(lambda x: (f(x) * x).sum())(X)
        after = Dropout(X, keep_prob=0.5)[1]  # the next draw after the step
        return first.asnumpy(), after.asnumpy()

    (g0, n0), (g1, n1) = run(False), run(True)
    np.testing.assert_allclose(g0, g1, rtol=1e-6)
    np.testing.assert_array_equal(n0, n1)
    seed.set_rng_state(Tensor(np.array([-1, 0], np.int64)))


def test_in_place_updates_apply_once():
    count = Parameter(Tensor(np.zeros(1, np.float32)), name="count", requires_grad=False)

    def counting(x):
        AssignAdd(count, Tensor(np.ones(1, np.float32)))
        return block(x)

    ad.grad(lambda x: recompute(counting, x, restore=[count]).sum())(X)
    assert count.asnumpy()[0] == 1.0


def test_non_tensor_arguments_and_keywords_pass_through():
    def scaled(x, k, *, shift):
        return block(x) * k + shift

    g = ad.grad(lambda x: recompute(scaled, x, 2.0, shift=X.sum()).sum())(X)
    ref = ad.grad(lambda x: scaled(x, 2.0, shift=X.sum()).sum())(X)
    np.testing.assert_allclose(g.asnumpy(), ref.asnumpy(), rtol=1e-5)


def test_context_fn_enters_around_each_run_and_scope_names_the_rerun():
    seen = []

    class Note:
        def __init__(self, what):
            self.what = what

        def __enter__(self):
            seen.append((self.what, recomputing()))

        def __exit__(self, *exc):
            return False

    ad.grad(lambda x: recompute(block, x, name="blk",
                                context_fn=lambda: (Note("first"), Note("again"))).sum())(X)
    assert seen == [("first", None), ("again", "blk")]
    assert recomputing() is None


def test_bad_outputs_and_arguments_name_the_call():
    with pytest.raises(TypeError, match=r"blk\.recompute\(\): a recomputed call must return"):
        ad.grad(lambda x: recompute(lambda y: [y * 2.0], x, name="blk")[0].sum())(X)
    with pytest.raises(TypeError, match=r"blk\.recompute\(\): a Tensor inside a list"):
        ad.grad(lambda x: recompute(lambda ys: ys[0], [x], name="blk").sum())(X)


def test_second_order_through_a_recomputed_call():
    f = lambda x: recompute(lambda y: (y * y * y).sum(), x)  # noqa: E731
    g2 = ad.grad(lambda x: ad.grad(f)(x).sum())(X)
    np.testing.assert_allclose(g2.asnumpy(), 6 * X.asnumpy(), rtol=1e-5)


def test_a_recomputed_call_inside_another_runs_with_it():
    calls = []

    def inner(x):
        calls.append("inner")
        return block(x)

    def outer(x):
        return recompute(inner, x, weights=[W1, W2]) * 2.0

    g = ad.grad(lambda x: recompute(outer, x, weights=[W1, W2]).sum(), 0, [W1, W2])(X)
    ref = ad.grad(lambda x: (block(x) * 2.0).sum(), 0, [W1, W2])(X)
    for a, b in zip([g[0], *g[1]], [ref[0], *ref[1]]):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-5)
    assert calls == ["inner", "inner"]  # the outer call's first run and its rerun
