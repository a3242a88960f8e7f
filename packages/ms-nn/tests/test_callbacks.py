"""Callbacks: MindSpore's print formats, checkpoint naming and rotation, and friends."""

import importlib.util
import io
import os
import pathlib
import re

import numpy as np
import pytest

from ms_nn.train import (
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LearningRateScheduler,
    LossMonitor,
    Model,
    ModelCheckpoint,
    ProgressBar,
    RunContext,
    TimeMonitor,
    load_checkpoint,
)
from ms_nn.train.callbacks import CallbackParam

_spec = importlib.util.spec_from_file_location(
    "_train_util", pathlib.Path(__file__).with_name("_train_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
ArrayDataset, make_parts = _util.ArrayDataset, _util.make_parts


def train(epochs=2, callbacks=None, **kwargs):
    net, loss, opt = make_parts()
    model = Model(net, loss, opt)
    model.train(epochs, ArrayDataset(), callbacks=callbacks, **kwargs)
    return model


def test_loss_monitor_prints_mindspore_lines_at_mindspore_steps(capsys):
    train(2, LossMonitor(3))
    lines = capsys.readouterr().out.splitlines()
    # Same steps as MindSpore 2.10 prints for 10 steps per epoch and per_print_times=3.
    assert [tuple(map(int, re.match(r"epoch: (\d+) step: (\d+), loss is [\d.]+$", ln).groups()))
            for ln in lines] == [(1, 3), (1, 6), (1, 9), (2, 2), (2, 5), (2, 8)]


def test_loss_monitor_in_sink_mode_prints_once_per_sink(capsys):
    train(2, LossMonitor(), dataset_sink_mode=True, sink_size=4)
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split(",")[0] for ln in lines] == ["epoch: 1 step: 4", "epoch: 2 step: 4"]


def test_loss_monitor_stops_on_nan():
    cb = CallbackParam(cur_epoch_num=1, cur_step_num=2, batch_num=10,
                       net_outputs=np.array(np.nan, np.float32))
    with pytest.raises(ValueError, match="In epoch: 1 step: 2, loss is NAN or INF"):
        LossMonitor().step_end(RunContext(cb))
    with pytest.raises(ValueError, match="non-negative int"):
        LossMonitor(-1)


def test_time_monitor_line(capsys):
    train(1, TimeMonitor())
    out = capsys.readouterr().out.strip()
    assert re.fullmatch(r"Train epoch time: [\d.]+ ms, per step time: [\d.]+ ms", out)


def test_model_checkpoint_names_rotation_and_prefix_renaming(tmp_path):
    config = CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=3)
    train(2, ModelCheckpoint("net", str(tmp_path), config))
    # MindSpore 2.10 leaves exactly these files for the same run.
    assert sorted(os.listdir(tmp_path)) == ["net-2_10.ckpt", "net-2_2.ckpt", "net-2_6.ckpt"]
    second = ModelCheckpoint("net", str(tmp_path), config)
    train(1, second)
    assert sorted(os.listdir(tmp_path)) == [
        "net-2_10.ckpt", "net-2_2.ckpt", "net-2_6.ckpt",
        "net_1-1_10.ckpt", "net_1-1_4.ckpt", "net_1-1_8.ckpt"]
    assert second.latest_ckpt_file_name == str(tmp_path / "net_1-1_10.ckpt")
    names = list(load_checkpoint(str(tmp_path / "net-2_10.ckpt")))
    assert names == ["weight", "bias", "global_step", "learning_rate", "momentum",
                     "moments.weight", "moments.bias"]


def test_checkpoint_append_info(tmp_path):
    config = CheckpointConfig(save_checkpoint_steps=10, append_info=["epoch_num", {"note": 7}])
    train(1, ModelCheckpoint("a", str(tmp_path), config))
    loaded = load_checkpoint(str(tmp_path / "a-1_10.ckpt"))
    assert int(loaded["epoch_num"]) == 1 and int(loaded["note"]) == 7


def test_checkpoint_config_validation():
    with pytest.raises(ValueError, match="cannot both be 0"):
        CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0)
    with pytest.raises(ValueError, match="append_info entries"):
        CheckpointConfig(append_info=["bogus"])
    with pytest.raises(TypeError, match="CheckpointConfig"):
        ModelCheckpoint("p", None, config={"save_checkpoint_steps": 1})


def test_history_records_loss_per_epoch():
    hist = History()
    train(3, hist)
    assert hist.epoch == {"epoch": [1, 2, 3]}
    assert len(hist.history["net_output"]) == 3


def test_learning_rate_scheduler_sets_the_optimizer_rate():
    seen = []

    class Probe(Callback):
        def on_train_step_end(self, rc):
            seen.append(float(rc.original_args().optimizer.learning_rate.asnumpy()))

    train(1, [LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 5 == 0 else lr),
              Probe()])
    assert seen[3] == pytest.approx(0.1) and seen[4] == pytest.approx(0.05)
    assert seen[-1] == pytest.approx(0.025)


def test_early_stopping_on_training_loss(capsys):
    # Epoch 1 improves on +inf; epoch 2 cannot beat it by min_delta, so training stops.
    stopper = EarlyStopping(monitor="loss", patience=1, min_delta=1e9, verbose=True)
    train(10, stopper)
    assert stopper.stopped_epoch == 2
    assert "Epoch 00002: early stopping" in capsys.readouterr().out
    with pytest.raises(ValueError, match="mode should be"):
        EarlyStopping(mode="up")


def test_progress_bar_plain_lines_when_not_a_tty():
    out = io.StringIO()
    train(2, ProgressBar(stream=out))
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in out.getvalue()
    assert re.match(r"epoch 1/2: 10 steps, loss [\d.]+, [\d.]+ s$", lines[0])


def test_progress_bar_redraws_on_a_tty():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    train(1, ProgressBar(width=10, stream=out))
    text = out.getvalue()
    assert text.count("\r") == 11 and "[##########] 10/10" in text


def test_old_style_hook_names_still_fire():
    calls = []

    class Old(Callback):
        def begin(self, rc):
            calls.append("begin")

        def step_end(self, rc):
            calls.append("step")

        def end(self, rc):
            calls.append("end")

    train(1, Old())
    assert calls == ["begin"] + ["step"] * 10 + ["end"]


def test_callbacks_must_be_callback_objects():
    with pytest.raises(TypeError, match="every callback must be a Callback"):
        train(1, [print])


def test_lambda_callback_runs_the_given_functions_and_rejects_unknown_hooks():
    from ms_nn.train.callbacks import LambdaCallback, RunContext

    seen = []
    cb = LambdaCallback(on_train_epoch_end=lambda ctx: seen.append(ctx.original_args()))
    params = {"cur_epoch_num": 3}
    cb.on_train_epoch_end(RunContext(params))
    cb.on_train_step_end(RunContext({}))  # not given: the base hook does nothing
    assert seen == [params]
    with pytest.raises(TypeError, match="unknown hooks \\['on_epoch'\\]"):
        LambdaCallback(on_epoch=print)
