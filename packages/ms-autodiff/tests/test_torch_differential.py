"""Gradients of random operator chains against torch.autograd (float64).

Each seed draws a chain of 3-6 operators; binary operators bring in a new leaf, often
of a broadcasting shape. The same chain runs on microspore and on PyTorch, and the
gradients of ``sum(chain(leaves) * w)`` with respect to every leaf must agree.
"""

import numpy as np
import pytest

import ms_autodiff as ad
import ms_ops as ops
from ms_tensor import Tensor

torch = pytest.importorskip("torch")


class MS:
    exp, tanh, sigmoid, relu = ops.exp, ops.tanh, ops.sigmoid, ops.relu
    matmul = staticmethod(ops.matmul)

    @staticmethod
    def sum(x, axis):
        return x.sum(axis=axis, keepdims=True)

    @staticmethod
    def mean(x, axis):
        return ops.mean(x, axis, keep_dims=True)

    @staticmethod
    def softmax(x):
        return ops.softmax(x, axis=-1)

    @staticmethod
    def log_softmax(x):
        return ops.log_softmax(x, axis=-1)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)

    @staticmethod
    def transpose(x):
        return ops.transpose(x, (1, 0))


class PT:
    exp, tanh, sigmoid, relu, matmul = torch.exp, torch.tanh, torch.sigmoid, torch.relu, \
        torch.matmul

    @staticmethod
    def sum(x, axis):
        return x.sum(dim=axis, keepdim=True)

    @staticmethod
    def mean(x, axis):
        return x.mean(dim=axis, keepdim=True)

    @staticmethod
    def softmax(x):
        return torch.softmax(x, dim=-1)

    @staticmethod
    def log_softmax(x):
        return torch.log_softmax(x, dim=-1)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)

    @staticmethod
    def transpose(x):
        return x.transpose(0, 1)


# Each unary step: (name, fn(lib, x, param)); each binary step also takes a new leaf y.
UNARY = {
    "exp": lambda L, x, p: L.exp(L.tanh(x)),  # bounded, so long chains cannot overflow
    "tanh": lambda L, x, p: L.tanh(x),
    "sigmoid": lambda L, x, p: L.sigmoid(x),
    "relu": lambda L, x, p: L.relu(x + 0.3),
    "sum": lambda L, x, p: L.sum(x, p),
    "mean": lambda L, x, p: L.mean(x, p),
    "softmax": lambda L, x, p: L.softmax(x),
    "log_softmax": lambda L, x, p: L.log_softmax(x),
    "reshape": lambda L, x, p: L.reshape(x, p),
    "transpose": lambda L, x, p: L.transpose(x),
}
BINARY = {
    "add": lambda L, x, y: x + y,
    "sub": lambda L, x, y: y - x,
    "mul": lambda L, x, y: x * y,
    "div": lambda L, x, y: x / (y * y + 0.5),
    "matmul": lambda L, x, y: L.matmul(x, y),
}
NAMES = sorted(UNARY) + sorted(BINARY)


def draw_chain(rng):
    """``(leaf shapes, steps)``; a step is ``(name, param_or_leaf_index)``."""
    shape = (int(rng.integers(1, 4)), int(rng.integers(2, 5)))
    leaves, steps = [shape], []
    for _ in range(int(rng.integers(3, 7))):
        name = NAMES[int(rng.integers(len(NAMES)))]
        m, n = shape
        if name in BINARY:
            if name == "matmul":
                k = int(rng.integers(1, 4))
                leaf, shape = (n, k), (m, k)
            else:
                leaf = [(m, n), (1, n), (m, 1), (n,)][int(rng.integers(4))]
            steps.append((name, len(leaves)))
            leaves.append(leaf)
        elif name in ("sum", "mean"):
            axis = int(rng.integers(2))
            steps.append((name, axis))
            shape = (1, n) if axis == 0 else (m, 1)
        elif name in ("reshape", "transpose"):
            shape = (n, m)
            steps.append((name, shape))
        else:
            steps.append((name, None))
    return leaves, steps, shape


def run_chain(lib, steps, leaves):
    x = leaves[0]
    for name, p in steps:
        x = BINARY[name](lib, x, leaves[p]) if name in BINARY else UNARY[name](lib, x, p)
    return x


@pytest.mark.parametrize("seed", range(60))
def test_random_chain_matches_torch(seed):
    rng = np.random.default_rng(seed)
    shapes, steps, out_shape = draw_chain(rng)
    values = [rng.standard_normal(s) for s in shapes]
    w = rng.standard_normal(out_shape)

    def loss(*xs):
        return (run_chain(MS, steps, xs) * Tensor(w)).sum()

    got = ad.grad(loss, grad_position=tuple(range(len(values))))(*[Tensor(v) for v in values])
    tx = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    (run_chain(PT, steps, tx) * torch.tensor(w)).sum().backward()
    for i, (g, t) in enumerate(zip(got, tx)):
        assert g.shape == tuple(t.shape)
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=f"chain {steps}, leaf {i} of shape {shapes[i]}")


@pytest.mark.parametrize("seed", range(10))
def test_random_chain_second_derivative_matches_torch(seed):
    """Hessian-vector products of a chain of smooth operators."""
    rng = np.random.default_rng(1000 + seed)
    shapes, steps, out_shape = draw_chain(rng)
    values = [rng.standard_normal(s) for s in shapes]
    w = rng.standard_normal(out_shape)
    v = rng.standard_normal(shapes[0])
    steps = [(n, p) if n != "relu" else ("tanh", None) for n, p in steps]

    def loss(*xs):
        return (run_chain(MS, steps, xs) * Tensor(w)).sum()

    def first(*xs):
        return (ad.grad(loss, grad_position=0)(*xs) * Tensor(v)).sum()

    got = ad.grad(first, grad_position=0)(*[Tensor(a) for a in values])
    tx = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in values]
    (gx,) = torch.autograd.grad((run_chain(PT, steps, tx) * torch.tensor(w)).sum(), tx[0],
                                create_graph=True)
    (hv,) = torch.autograd.grad((gx * torch.tensor(v)).sum(), tx[0], allow_unused=True)
    want = np.zeros(shapes[0]) if hv is None else hv.numpy()
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-9, atol=1e-12,
                               err_msg=f"chain {steps}")
