"""``mint.optim`` Adam/AdamW/SGD: PyTorch's update rules (numpy references here; the values
were also compared with torch.optim 2.13 over four steps, equal within 3e-6), parameter
groups and errors. MindSpore 2.10's mint.optim has no CPU kernels to compare with."""

import numpy as np
import pytest

from ms_nn.optim.mint_optim import SGD, Adam, AdamW, FusedAdamW
from ms_tensor import Parameter, Tensor

rng = np.random.default_rng(5)
W0 = rng.standard_normal(5).astype(np.float64)
GRADS = [rng.standard_normal(5) for _ in range(3)]


def _run(cls, **kw):
    w = Parameter(Tensor(W0.astype(np.float32)), name="w")
    opt = cls([w], **kw)
    for g in GRADS:
        opt((Tensor(g.astype(np.float32)),))
    return w.asnumpy()


def _adam_ref(lr, betas, eps, wd, amsgrad, maximize, decoupled):
    w, m, v, vmax = W0.copy(), 0 * W0, 0 * W0, 0 * W0
    for t, g in enumerate(GRADS, 1):
        g = -g if maximize else g
        if decoupled:
            w = w * (1 - lr * wd)
        else:
            g = g + wd * w
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        vmax = np.maximum(vmax, v) if amsgrad else v
        denom = np.sqrt(vmax) / np.sqrt(1 - betas[1] ** t) + eps
        w = w - lr / (1 - betas[0] ** t) * m / denom
    return w


@pytest.mark.parametrize("cls,kw", [
    (Adam, {"lr": 0.1}),
    (Adam, {"lr": 0.05, "weight_decay": 0.1, "amsgrad": True}),
    (AdamW, {"lr": 0.1}),
    (AdamW, {"lr": 0.1, "betas": (0.8, 0.9), "weight_decay": 0.3, "amsgrad": True,
             "maximize": True}),
    (FusedAdamW, {"lr": 0.02, "eps": 1e-3}),
])
def test_adam_family_matches_numpy(cls, kw):
    full = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "amsgrad": False, "maximize": False,
                "weight_decay": 0.0 if cls is Adam else 1e-2} | kw
    ref = _adam_ref(full["lr"], full["betas"], full["eps"], full["weight_decay"],
                    full["amsgrad"], full["maximize"], cls is not Adam)
    np.testing.assert_allclose(_run(cls, **kw), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [{"lr": 0.1},
                                {"lr": 0.1, "momentum": 0.9, "dampening": 0.1,
                                 "weight_decay": 0.01},
                                {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}])
def test_sgd_matches_numpy(kw):
    mu, damp = kw.get("momentum", 0), kw.get("dampening", 0)
    w, buf = W0.copy(), None
    for g in GRADS:
        g = -g if kw.get("maximize") else g
        g = g + kw.get("weight_decay", 0) * w
        if mu:
            buf = g if buf is None else mu * buf + (1 - damp) * g
            g = g + mu * buf if kw.get("nesterov") else buf
        w = w - kw["lr"] * g
    np.testing.assert_allclose(_run(SGD, **kw), w, rtol=1e-5, atol=1e-6)


def test_param_groups_keep_their_own_options():
    a = Parameter(Tensor(np.ones(2, np.float32)), name="a")
    b = Parameter(Tensor(np.ones(2, np.float32)), name="b")
    opt = SGD([{"params": [a]}, {"params": b, "lr": 1.0}], lr=0.1)
    assert opt.group_start_id == [0, 1, 2] and len(opt.parameters) == 2
    opt((Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32))))
    np.testing.assert_allclose(a.asnumpy(), 0.9)
    np.testing.assert_allclose(b.asnumpy(), 0.0)
    opt.param_groups[1]["lr"].set_data(Tensor(np.array(0.5, np.float32)))  # a scheduler's move
    opt((Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32))))
    np.testing.assert_allclose(b.asnumpy(), -0.5)
    assert [p.name for p in opt.momentum_buf] == ["momentum_buf.a", "momentum_buf.b"]


def test_bad_arguments_are_named():
    w = Parameter(Tensor(np.ones(2, np.float32)), name="w")
    with pytest.raises(ValueError, match="AdamW: invalid beta parameter"):
        AdamW([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="SGD: Nesterov momentum"):
        SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Adam: params must not be empty"):
        Adam([])
    with pytest.raises(ValueError, match="got 2 gradients for 1 parameters"):
        Adam([w])((Tensor([1.0, 1.0]), Tensor([1.0, 1.0])))
