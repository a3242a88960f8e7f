"""Training resumed from a ModelCheckpoint file continues with identical losses."""

import importlib.util
import pathlib

import numpy as np
import pytest

from ms_nn.train import (
    Callback,
    CheckpointConfig,
    Model,
    ModelCheckpoint,
    load_checkpoint,
    load_param_into_net,
)

# Every test here runs in PYNATIVE_MODE and in GRAPH_MODE (conftest.py's ``mode``).
pytestmark = pytest.mark.usefixtures("mode")

_spec = importlib.util.spec_from_file_location(
    "_train_util", pathlib.Path(__file__).with_name("_train_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
ArrayDataset, make_parts = _util.ArrayDataset, _util.make_parts


class Losses(Callback):
    def __init__(self):
        self.values = []

    def on_train_step_end(self, rc):
        self.values.append(float(rc.original_args().net_outputs.asnumpy()))


def test_resume_from_checkpoint_gives_identical_losses(tmp_path):
    full = Losses()
    net, loss, opt = make_parts(seed=0)
    Model(net, loss, opt).train(3, ArrayDataset(), callbacks=full)

    first = Losses()
    net, loss, opt = make_parts(seed=0)
    saver = ModelCheckpoint("run", str(tmp_path), CheckpointConfig(save_checkpoint_steps=10))
    Model(net, loss, opt).train(1, ArrayDataset(), callbacks=[first, saver])

    # A fresh process would rebuild everything with other weights, then load the file.
    net, loss, opt = make_parts(seed=123)
    model = Model(net, loss, opt)
    params = load_checkpoint(str(tmp_path / "run-1_10.ckpt"))
    assert load_param_into_net(model.train_network, params) == ([], [])
    resumed = Losses()
    model.train(3, ArrayDataset(), callbacks=resumed, initial_epoch=1)

    assert first.values + resumed.values == full.values  # bit-identical, not just close
    assert int(np.asarray(opt.global_step.asnumpy()).reshape(-1)[0]) == 30
