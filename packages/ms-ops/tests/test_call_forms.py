"""Call forms MindSpore 2.10 accepts: a lone Tensor to stack, permute() without axes,
BCEWithLogitsLoss without its optional weights (values from MindSpore 2.10)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Tensor

X = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


def test_stack_of_one_tensor_is_a_sequence_of_one():
    assert ops.stack(X).shape == (1, 2, 3)
    assert ops.Stack()(X).shape == (1, 2, 3)
    np.testing.assert_array_equal(ops.stack(X, axis=1).asnumpy(), X.asnumpy()[:, None])


def test_concat_of_one_tensor_names_the_operator():
    with pytest.raises(TypeError, match=r"Concat: .*one Tensor of shape \(2, 3\)"):
        ops.concat(X)


def test_permute_without_axes_reverses_them():
    t = Tensor(np.zeros((2, 3, 4), np.float32))
    assert t.permute().shape == (4, 3, 2)
    assert t.permute(1, 0, 2).shape == (3, 2, 4)


def test_bce_with_logits_weights_are_optional():
    logits = Tensor(np.array([[0.5, -1.0], [2.0, 0.1]], np.float32))
    label = Tensor(np.array([[1, 0], [0, 1]], np.float32))
    np.testing.assert_allclose(ops.BCEWithLogitsLoss()(logits, label).asnumpy(), 0.88966584,
                               rtol=1e-6)
    np.testing.assert_allclose(ops.BCEWithLogitsLoss(reduction="none")(logits, label).asnumpy(),
                               [[0.474077, 0.31326163], [2.126928, 0.64439666]], rtol=1e-6)
