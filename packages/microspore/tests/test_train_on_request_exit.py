"""microspore.train.OnRequestExit exports MINDIR through ms-lite when training is stopped."""

import os
import signal

import numpy as np

import microspore as ms
from microspore import nn

SIG = signal.SIGUSR1


class SendAt(ms.Callback):
    def on_train_step_end(self, run_context):
        if run_context.original_args().cur_step_num == 2:
            os.kill(os.getpid(), SIG)


def test_stop_saves_checkpoint_and_mindir(tmp_path):
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    y = (x @ np.ones((3, 1), np.float32)).astype(np.float32)
    data = ms.dataset.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(2)
    net = nn.Dense(3, 1)
    model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    previous = signal.getsignal(SIG)
    exit_cb = ms.train.OnRequestExit(file_name="dense", directory=str(tmp_path), sig=SIG)
    model.train(3, data, callbacks=[SendAt(), exit_cb], dataset_sink_mode=False)
    assert signal.getsignal(SIG) is previous
    folder = tmp_path / "rank_0"
    assert (folder / "dense_train.ckpt").is_file()
    mindir = folder / "dense_train.mindir"
    assert mindir.is_file() and mindir.stat().st_size > 0
    assert ms.OnRequestExit is ms.train.OnRequestExit
