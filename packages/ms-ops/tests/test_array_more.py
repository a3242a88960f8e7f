"""Depth/space/batch rearrangements and the other shape helpers against numpy references
and MindSpore 2.10's answers on the same inputs."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor, int64

RNG = np.random.default_rng(0)
S = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_depth_space_round_trip_and_layout():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)
    out = ops.DepthToSpace(2)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out[0, 0, 0], [0, 4, 1, 5])  # MindSpore's DCR order
    np.testing.assert_array_equal(ops.SpaceToDepth(2)(Tensor(out)).asnumpy(), x)
    with pytest.raises(ValueError, match="DepthToSpace: channels 4 must be divisible by"):
        ops.DepthToSpace(3)(Tensor(x))


def test_space_to_batch_and_back():
    y = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    out = ops.space_to_batch_nd(Tensor(y), [2, 2], [[0, 0], [0, 0]]).asnumpy()
    np.testing.assert_array_equal(out[:, 0], [y[0, 0, ::2, ::2], y[0, 0, ::2, 1::2],
                                              y[0, 0, 1::2, ::2], y[0, 0, 1::2, 1::2]])
    padded = ops.space_to_batch_nd(Tensor(y), [2, 2], [[1, 1], [0, 0]])
    assert padded.shape == (4, 1, 3, 2)
    back = ops.batch_to_space_nd(padded, [2, 2], [[1, 1], [0, 0]])
    np.testing.assert_array_equal(back.asnumpy(), y)
    cropped = ops.BatchToSpaceNDV2()(Tensor(out), Tensor(np.array([2, 2], np.int32)),
                                     Tensor(np.array([[0, 0], [0, 1]], np.int32)))
    np.testing.assert_array_equal(cropped.asnumpy(), y[..., :3])
    check_grad(lambda t: ops.space_to_batch_nd(t, [2, 2], [[1, 1], [0, 0]]),
               RNG.standard_normal((2, 1, 4, 4)))


def test_diag_any_rank_and_diag_part():
    out = ops.Diag()(Tensor(S))
    assert out.shape == (3, 4, 3, 4)
    np.testing.assert_array_equal(out.asnumpy().reshape(12, 12), np.diag(S.reshape(-1)))
    np.testing.assert_array_equal(ops.DiagPart()(out).asnumpy(), S)
    with pytest.raises(ValueError, match="DiagPart: input shape must be"):
        ops.DiagPart()(Tensor(S))
    check_grad(lambda t: ops.Diag()(t), RNG.standard_normal((2, 2)))


def test_reverse_sequence_and_its_gradient():
    out = ops.reverse_sequence(Tensor(S), Tensor(np.array([4, 2, 3], np.int32)), 1)
    np.testing.assert_array_equal(out.asnumpy(), [[3, 2, 1, 0], [5, 4, 6, 7], [10, 9, 8, 11]])
    out = ops.ReverseSequence(0, 1)(Tensor(S), Tensor(np.array([2, 1, 3, 0], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), [[4, 1, 10, 3], [0, 5, 6, 7], [8, 9, 2, 11]])
    lengths = Tensor(np.array([3, 1], np.int32))
    check_grad(lambda t: ops.reverse_sequence(t, lengths, 1), RNG.standard_normal((2, 4)))
    with pytest.raises(ValueError, match=r"seq_lengths shape \(2,\) must be \(3,\)"):
        ops.reverse_sequence(Tensor(S), lengths, 1)


def test_combinations_vander_and_aliases():
    v = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(ops.combinations(Tensor(v)).asnumpy(), [[1, 2], [1, 3], [2, 3]])
    assert ops.combinations(Tensor(v), 2, True).shape == (6, 2)
    np.testing.assert_array_equal(ops.vander(Tensor(v), 4).asnumpy(), np.vander(v, 4))
    np.testing.assert_array_equal(ops.expand(Tensor(v), Tensor(np.array([2, -1]))).asnumpy(),
                                  np.broadcast_to(v, (2, 3)))
    np.testing.assert_array_equal(ops.repeat_elements(Tensor(S), 2, 1).asnumpy(),
                                  np.repeat(S, 2, 1))
    np.testing.assert_array_equal(ops.reverse(Tensor(S), [1]).asnumpy(), S[:, ::-1])
    r = ops.tensor_range(Tensor(0), Tensor(5), Tensor(2))
    assert r.dtype == int64 and r.asnumpy().tolist() == [0, 2, 4]
    np.testing.assert_array_equal(ops.TransposeExtView()(Tensor(S), 0, 1).asnumpy(), S.T)
    assert ops.InvertPermutation()((3, 4, 0, 2, 1)) == (2, 4, 3, 0, 1)
    with pytest.raises(ValueError, match="InvertPermutation: input must be a permutation"):
        ops.InvertPermutation()((0, 0))
    starts, limits = Tensor(np.array([2, 5, 8])), Tensor(np.array([3, 5, 12]))
    splits, values = ops.RaggedRange(int64)(starts, limits, Tensor(np.array([1, 1, 1])))
    assert splits.asnumpy().tolist() == [0, 1, 1, 5]
    assert values.asnumpy().tolist() == [2, 8, 9, 10, 11]
    np.testing.assert_allclose(ops.LogSpace(5, 2)(Tensor(1.0), Tensor(3.0)).asnumpy(),
                               np.logspace(1, 3, 5, base=2), rtol=1e-6)
    a, b = ops.IdentityN()((Tensor(v), Tensor(S)))
    np.testing.assert_array_equal(b.asnumpy(), S)
    np.testing.assert_array_equal(ops.FillV2()(Tensor(np.array([2, 3])), Tensor(1.5)).asnumpy(),
                                  np.full((2, 3), 1.5))
