"""map's callbacks, debug mode and error-samples modes (expected values from MindSpore 2.10)."""

import threading

import numpy as np
import pytest

import ms_data as ds
from ms_data import config
from ms_data.debug import DebugHook


class Recorder(ds.DSCallback):
    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.events = []

    def ds_begin(self, c):
        self.events.append(("b", c.cur_epoch_num, c.cur_step_num))

    def ds_epoch_begin(self, c):
        self.events.append(("eb", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))

    def ds_epoch_end(self, c):
        self.events.append(("ee", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))

    def ds_step_begin(self, c):
        self.events.append(("sb", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))

    def ds_step_end(self, c):
        self.events.append(("se", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))


def test_callback_counts_match_mindspore():
    cb = Recorder(2)
    data = ds.NumpySlicesDataset([1, 2, 3], column_names=["x"], shuffle=False)
    it = data.map(lambda x: x, callbacks=cb).create_tuple_iterator(num_epochs=2)
    for _ in range(2):
        assert len(list(it)) == 3
    assert sorted(cb.events) == [  # MindSpore 2.10's events for the same pipeline
        ("b", 0, 0), ("eb", 1, 0, 0), ("eb", 2, 0, 3), ("ee", 1, 3, 3), ("ee", 2, 3, 6),
        ("sb", 1, 1, 1), ("sb", 1, 3, 3), ("sb", 2, 1, 4), ("sb", 2, 3, 6),
        ("se", 1, 1, 1), ("se", 1, 3, 3), ("se", 2, 1, 4), ("se", 2, 3, 6)]


def test_callback_arguments_are_checked():
    data = ds.NumpySlicesDataset([1], shuffle=False)
    with pytest.raises(TypeError, match="DSCallback"):
        data.map(lambda x: x, callbacks=[object()])
    with pytest.raises(ValueError, match="step_size"):
        ds.DSCallback(0)


class Waited(ds.WaitedDSCallback):
    def __init__(self):
        super().__init__(1)
        self.seen = []

    def sync_step_begin(self, train_run_context, ds_run_context):
        self.seen.append((train_run_context, ds_run_context.cur_step_num))


def test_waited_callback_holds_the_pipeline_until_the_step_ends():
    cb = Waited()
    data = ds.NumpySlicesDataset([1, 2, 3], shuffle=False).map(lambda x: x, callbacks=cb)
    it = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    rows = [int(next(it)[0])]
    assert cb.seen == []  # step 2 waits for training's step_end
    for step in (1, 2):
        cb.step_end(f"train{step}")
        rows.append(int(next(it)[0]))
    cb.end("done")
    assert rows == [1, 2, 3] and cb.seen == [("train1", 2), ("train2", 3)]


def test_waited_callback_times_out(monkeypatch):
    monkeypatch.setattr(config, "_callback_timeout", 0.05)
    cb = Waited()
    data = ds.NumpySlicesDataset([1, 2], shuffle=False).map(lambda x: x, callbacks=cb)
    with pytest.raises(RuntimeError, match="ds_step_begin timed out"):
        list(data.create_tuple_iterator(num_epochs=1))


def _bad(x):
    if x in (2, 4):
        raise ValueError("bad")
    return x * 10


@pytest.mark.parametrize("mode, expected", [
    (config.ErrorSamplesMode.SKIP, [(10, 6), (30, 8), (50, 10)]),
    (config.ErrorSamplesMode.REPLACE, [(10, 6), (30, 8), (50, 10), (10, 6), (30, 8)]),
])
def test_error_samples_modes_match_mindspore(monkeypatch, mode, expected):
    monkeypatch.setattr(config, "_error_samples_mode", mode)
    data = ds.NumpySlicesDataset({"x": [1, 2, 3, 4, 5], "y": [6, 7, 8, 9, 10]}, shuffle=False)
    rows = data.map(_bad, input_columns="x").create_tuple_iterator(output_numpy=True)
    assert [(int(a), int(b)) for a, b in rows] == expected


def test_error_samples_return_raises():
    data = ds.NumpySlicesDataset([1, 2, 3], shuffle=False).map(_bad)
    with pytest.raises(ds.PipelineError, match="bad"):
        list(data)


class Shapes(DebugHook):
    def __init__(self, log):
        super().__init__()
        self.log = log

    def compute(self, *args):
        self.log.append((self.prev_op_name, self.is_first_op, [a.shape for a in args[0]]))


def test_debug_mode_calls_the_hooks_around_every_operation(capsys):
    log = []
    config.set_debug_mode(True, [Shapes(log)])
    try:
        assert config.get_debug_mode()
        data = ds.NumpySlicesDataset({"x": np.zeros((2, 3), np.float32)}, shuffle=False)
        out = data.map([lambda x: x + 1, lambda x: x[:2]], input_columns="x")
        rows = [next(it) for it in [out.create_tuple_iterator(output_numpy=True)] for _ in "ab"]
    finally:
        config.set_debug_mode(False)
    assert [r[0].tolist() for r in rows] == [[1, 1], [1, 1]]
    assert log[:3] == [("<lambda>", True, [(3,)]), ("<lambda>", False, [(3,)]),
                       ("<lambda>", False, [(2,)])] and len(log) == 6
    assert "Print the [OUTPUT] of the operation [<lambda>]" in capsys.readouterr().out
    with pytest.raises(TypeError, match="DebugHook"):
        config.set_debug_mode(True, [lambda x: x])
    assert not config.get_debug_mode() and config.debug_hooks() == []


def test_config_settings_are_checked_like_mindspore():
    assert (ds.get_callback_timeout(), ds.get_enable_watchdog(), ds.get_video_backend(),
            ds.get_multiprocessing_timeout_interval()) == (60, True, "CPU", 300)
    assert ds.get_error_samples_mode() == ds.ErrorSamplesMode.RETURN == 0
    for call, value, error in [(config.set_callback_timeout, 0, ValueError),
                               (config.set_callback_timeout, 2.5, TypeError),
                               (config.set_enable_watchdog, 1, TypeError),
                               (config.set_multiprocessing_timeout_interval, 0, ValueError),
                               (config.set_video_backend, "cpu", ValueError),
                               (config.set_video_backend, 3, TypeError),
                               (config.set_error_samples_mode, 1, TypeError),
                               (config.set_debug_mode, 1, TypeError)]:
        with pytest.raises(error):
            call(value)
    with pytest.raises(ValueError, match="Ascend"):
        ds.set_video_backend("Ascend")
    ds.set_video_backend("CPU")


def test_waited_callback_is_released_from_another_thread():
    cb = Waited()
    data = ds.NumpySlicesDataset(list(range(5)), shuffle=False).map(lambda x: x, callbacks=cb)
    it = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    got = []

    def train():
        for row in it:
            got.append(int(row[0]))
            cb.step_end(len(got))
        cb.end(None)

    t = threading.Thread(target=train)
    t.start()
    t.join(10)
    assert got == [0, 1, 2, 3, 4] and [s for _, s in cb.seen] == [2, 3, 4, 5]
