"""ReduceLROnPlateau (learning rates equal MindSpore 2.10's over the same monitored
sequences), checkpoint conversion, merge_sliced_parameter and load_checkpoint_async."""

import numpy as np
import pytest

import ms_nn as nn
from ms_nn.train import checkpoint_tools as tools
from ms_nn.train.callbacks import CallbackParam, ReduceLROnPlateau, RunContext
from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_tensor import Parameter, Tensor


def _lrs(values, **kw):
    opt = nn.Momentum(nn.Dense(2, 1).trainable_params(), 0.1, 0.9)
    cb = ReduceLROnPlateau(**kw)
    params = CallbackParam()
    params.optimizer = opt
    ctx = RunContext(params)
    cb.on_train_begin(ctx)
    out = []
    for v in values:
        params.eval_results = {"eval_loss": v, "acc": v}
        cb.on_train_epoch_end(ctx)
        out.append(round(float(opt.learning_rate.asnumpy()), 6))
    return out


def test_reduce_lr_on_plateau_with_patience_cooldown_and_floor():
    seq = [1.0, 0.9, 0.95, 0.97, 0.96, 0.5, 0.6, 0.7, 0.8, 0.9]
    assert _lrs(seq, patience=2, factor=0.5) == [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.025,
                                                 0.025, 0.0125]
    assert _lrs(seq, patience=1, factor=0.2, cooldown=2, min_lr=0.01) == [
        0.1, 0.1, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01]
    with pytest.raises(ValueError, match="factor must be in"):
        ReduceLROnPlateau(factor=1.5)


def test_checkpoint_conversion_round_trip(tmp_path):
    net = nn.Dense(3, 2)
    src = tmp_path / "a" / "net.ckpt"
    src.parent.mkdir()
    save_checkpoint(net, str(src))
    tools.ckpt_to_safetensors(str(tmp_path / "a"), str(tmp_path / "b"),
                              name_map={"weight": "w"})
    params = load_checkpoint(str(tmp_path / "b" / "net.safetensors"), format="safetensors")
    np.testing.assert_array_equal(params["w"].asnumpy(), net.weight.asnumpy())
    tools.safetensors_to_ckpt(str(tmp_path / "b" / "net.safetensors"), str(tmp_path / "c"))
    assert set(load_checkpoint(str(tmp_path / "c" / "net.ckpt"))) == {"w", "bias"}
    with pytest.raises(ValueError, match="must be a .ckpt file"):
        tools.ckpt_to_safetensors(str(tmp_path / "b" / "net.safetensors"))
    future = tools.load_checkpoint_async(str(src))
    assert set(future.result()) == {"weight", "bias"}


def test_merge_sliced_parameter():
    parts = [Parameter(Tensor(np.full((1, 2), i, np.float32)), name="w") for i in range(3)]
    merged = tools.merge_sliced_parameter(parts)
    assert merged.name == "w" and merged.shape == (3, 2)
    with pytest.raises(ValueError, match="does not match"):
        tools.merge_sliced_parameter(parts + [Parameter(Tensor(np.ones((1, 3), np.float32)),
                                                        name="w")])


def test_backup_and_restore_resumes_from_the_backup(tmp_path):
    from ms_nn.train.callbacks import BackupAndRestore

    net = nn.Dense(2, 1)
    params = CallbackParam()
    params.train_network, params.cur_epoch_num = net, 2
    ctx = RunContext(params)
    backup = BackupAndRestore(str(tmp_path), save_freq=2, delete_checkpoint=False)
    backup.on_train_epoch_end(ctx)
    saved = net.weight.asnumpy().copy()
    net.weight.set_data(Tensor(np.zeros((1, 2), np.float32)))
    backup.on_train_begin(ctx)  # a restarted job loads the backup
    np.testing.assert_array_equal(net.weight.asnumpy(), saved)
    BackupAndRestore(str(tmp_path)).on_train_end(ctx)
    assert not (tmp_path / "backup.ckpt").exists()
