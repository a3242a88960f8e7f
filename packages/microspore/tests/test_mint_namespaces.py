"""``microspore.mint``'s subpackages: ``nn`` (layers, ``functional``/``F``, ``layer``),
``optim``, ``functional``, ``linalg`` and ``special`` resolve to working objects."""

import numpy as np
import pytest

import microspore as ms


def test_mint_nn_and_optim():
    net = ms.mint.nn.Linear(3, 2)
    assert net(ms.Tensor(np.ones((4, 3), np.float32))).shape == (4, 2)
    assert ms.mint.nn.F is ms.mint.nn.functional and ms.mint.nn.layer.Linear is ms.mint.nn.Linear
    opt = ms.mint.optim.AdamW(net.trainable_params(), lr=0.1)
    assert ms.mint.optim.adamw.AdamW is type(opt)


def test_mint_linalg_special_functional():
    x = np.array([[2.0, 0.0], [0.0, 4.0]], np.float32)
    np.testing.assert_allclose(ms.mint.linalg.inv(ms.Tensor(x)).asnumpy(), np.linalg.inv(x))
    out = ms.mint.special.log_softmax(ms.Tensor(np.array([1.0, 2.0], np.float32))).asnumpy()
    np.testing.assert_allclose(out, np.log(np.exp([1, 2]) / np.exp([1, 2]).sum()), rtol=1e-5)
    assert ms.mint.functional.relu is ms.mint.nn.functional.relu
    with pytest.raises(AttributeError, match="no_such_function"):
        ms.mint.linalg.__getattr__("no_such_function")
