"""The shape helpers against numpy (MindSpore 2.10 gave the same arrays on these inputs)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_tensor import Tensor

X = np.arange(6, dtype=np.float32).reshape(2, 3)
V = np.arange(3, dtype=np.float32)
W = np.arange(2, dtype=np.float32)
B = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _eq(got, want):
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w)


@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("arrays", [(X, X), (V, V)])
def test_stacks_match_numpy(name, arrays):
    ref = getattr(np, name if name != "row_stack" else "vstack")
    _eq(getattr(ops, name)([Tensor(a) for a in arrays]), ref(arrays))


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("a", [np.float32(1), V, X, B])
def test_atleast(n, a):
    _eq(getattr(ops, f"atleast_{n}d")(Tensor(a)), getattr(np, f"atleast_{n}d")(a))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_and_cartesian_prod(indexing):
    z = np.arange(4, dtype=np.float32)
    _eq(ops.meshgrid(Tensor(V), Tensor(W), indexing=indexing), np.meshgrid(V, W, indexing=indexing))
    _eq(ops.meshgrid(Tensor(V), Tensor(W), Tensor(z), indexing=indexing),
        np.meshgrid(V, W, z, indexing=indexing))
    _eq(ops.cartesian_prod(Tensor(V), Tensor(W)),
        np.stack([g.ravel() for g in np.meshgrid(V, W, indexing="ij")], 1))
    with pytest.raises(ValueError, match="meshgrid: indexing"):
        ops.meshgrid(Tensor(V), indexing="xyz")


def test_axes_narrow_ravel_unflatten():
    _eq(ops.movedim(Tensor(B), 0, 2), np.moveaxis(B, 0, 2))
    _eq(ops.swapdims(Tensor(B), 0, 2), np.swapaxes(B, 0, 2))
    _eq(ops.narrow(Tensor(X), 1, 1, 2), X[:, 1:3])
    with pytest.raises(ValueError, match="narrow: start 2 \\+ length 2 runs past"):
        ops.narrow(Tensor(X), 1, 2, 2)
    _eq(ops.ravel(Tensor(X)), X.ravel())
    _eq(ops.unflatten(Tensor(B), 2, (2, -1)), B.reshape(2, 3, 2, 2))


@pytest.mark.parametrize("repeats,axis", [(2, None), (2, 1), ([1, 2], 0), ([0, 1, 3], 1)])
def test_repeat_interleave(repeats, axis):
    _eq(ops.repeat_interleave(Tensor(X), repeats, axis), np.repeat(X, repeats, axis))


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (0, 2), (2, 1)])
def test_rot90(k, dims):
    _eq(ops.rot90(Tensor(B), k, dims), np.rot90(B, k, dims))


@pytest.mark.parametrize("sections", [2, 3, (1, 2), (0, 5), (2, 1)])
def test_tensor_split_family(sections):
    _eq(ops.tensor_split(Tensor(B), sections, 2), np.array_split(B, sections, 2)
        if isinstance(sections, int) else np.split(B, sections, 2))
    _eq(ops.hsplit(Tensor(B), sections), np.hsplit(B, sections) if not isinstance(sections, int)
        or B.shape[1] % sections == 0 else np.array_split(B, sections, 1))
    _eq(ops.dsplit(Tensor(B), (1, 3)), np.dsplit(B, (1, 3)))
    with pytest.raises(ValueError, match="vsplit: input must be at least 2-d"):
        ops.vsplit(Tensor(V), 1)


def test_block_diag_index_select_take():
    want = np.zeros((4, 7), np.float32)
    want[:2, :3], want[2, 3:6], want[3, 6] = X, V, 7
    _eq(ops.block_diag(Tensor(X), Tensor(V), Tensor(np.float32(7))), want)
    index = np.array([2, 0], np.int32)
    _eq(ops.index_select(Tensor(X), 1, Tensor(index)), X[:, index])
    _eq(ops.take(Tensor(X), Tensor(np.array([[0, 5], [4, 1]]))), np.take(X, [[0, 5], [4, 1]]))
    with pytest.raises(ValueError, match="index_select: index must be 1-d"):
        ops.index_select(Tensor(X), 1, Tensor(index.reshape(2, 1)))


def test_compositions_differentiate():
    g = grad(lambda t: (ops.rot90(t, 1, (0, 1)) * Tensor(np.arange(6.0).reshape(3, 2))).sum())
    _eq(g(Tensor(X)), np.rot90(np.arange(6.0).reshape(3, 2), -1, (0, 1)).astype(np.float32))
    g = grad(lambda t: ops.repeat_interleave(t, 2, 1).sum())(Tensor(X))
    _eq(g, np.full(X.shape, 2, np.float32))
