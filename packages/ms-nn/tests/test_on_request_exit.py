"""OnRequestExit: its signal handler lives only while Model.train runs, a signal or the
config file stops training after the current step, and the checkpoint is saved and resumed."""

import importlib.util
import json
import os
import pathlib
import signal

import numpy as np
import pytest

from ms_nn.train import Callback, Model, load_checkpoint
from ms_nn.train.callbacks import OnRequestExit

_spec = importlib.util.spec_from_file_location(
    "_train_util", pathlib.Path(__file__).with_name("_train_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
ArrayDataset, make_parts = _util.ArrayDataset, _util.make_parts

SIG = signal.SIGUSR1


class Probe(Callback):
    """Records the handler of SIG and the step, and sends SIG at step ``send_at``."""

    def __init__(self, send_at=None, fail_at=None):
        self.send_at, self.fail_at, self.handlers, self.steps = send_at, fail_at, [], []

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        self.steps.append(p.cur_step_num)
        self.handlers.append(signal.getsignal(SIG))
        if p.cur_step_num == self.send_at:
            os.kill(os.getpid(), SIG)
        if p.cur_step_num == self.fail_at:
            raise RuntimeError("boom")


def _train(callbacks, epochs=2):
    net, loss, opt = make_parts()
    Model(net, loss, opt).train(epochs, ArrayDataset(), callbacks=callbacks)
    return net


def test_handler_only_during_training_and_signal_stops_after_the_step(tmp_path):
    previous = signal.getsignal(SIG)
    exit_cb = OnRequestExit(save_mindir=False, file_name="lenet", directory=str(tmp_path),
                            sig=SIG)
    assert signal.getsignal(SIG) is previous  # constructing installs nothing
    probe = Probe(send_at=3)
    _train([probe, exit_cb])
    assert probe.steps == [1, 2, 3]  # stopped after the step that got the signal
    assert all(h == exit_cb._handle_signal for h in probe.handlers)
    assert signal.getsignal(SIG) is previous  # restored by on_train_end
    saved = load_checkpoint(str(tmp_path / "rank_0" / "lenet_train.ckpt"))
    assert int(np.asarray(saved["step_num"])) == 3 and int(np.asarray(saved["epoch_num"])) == 1


def test_without_a_request_training_runs_through_and_saves_nothing(tmp_path):
    probe = Probe()
    _train([probe, OnRequestExit(save_mindir=False, directory=str(tmp_path), sig=SIG)])
    assert probe.steps[-1] == 20 and not (tmp_path / "rank_0" / "Net_train.ckpt").exists()


def test_config_file_requests_exit_and_next_run_resumes(tmp_path):
    config = tmp_path / "exit.json"
    config.write_text(json.dumps({"GracefulExit": 1}))
    probe = Probe()
    net = _train([probe, OnRequestExit(save_mindir=False, directory=str(tmp_path),
                                       config_file=str(config), sig=SIG)])
    assert probe.steps == [1]
    config.write_text(json.dumps({"GracefulExit": 0}))

    class Weights(Callback):
        def on_train_begin(self, run_context):
            net = run_context.original_args().train_network
            self.loaded = {p.name: p.asnumpy().copy() for p in net.get_parameters()}

    weights = Weights()
    _train([OnRequestExit(save_mindir=False, directory=str(tmp_path), config_file=str(config),
                          sig=SIG), weights], epochs=1)
    trained = {p.name: p.asnumpy() for p in net.get_parameters()}
    for name, value in trained.items():  # the second run started from the saved weights
        np.testing.assert_array_equal(weights.loaded[name], value)


def test_handler_restored_when_training_raises(tmp_path):
    previous = signal.getsignal(SIG)
    with pytest.raises(RuntimeError, match="boom"):
        _train([Probe(fail_at=2), OnRequestExit(save_mindir=False, directory=str(tmp_path),
                                                 sig=SIG)])
    assert signal.getsignal(SIG) is previous


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="SIGKILL"):
        OnRequestExit(save_mindir=False, sig=signal.SIGKILL)
    with pytest.raises(ValueError, match="save_ckpt"):
        OnRequestExit(save_ckpt=1, save_mindir=False)
    with pytest.raises(ValueError, match="exporter"):
        OnRequestExit()  # MINDIR export needs ms-lite: microspore.train.OnRequestExit
