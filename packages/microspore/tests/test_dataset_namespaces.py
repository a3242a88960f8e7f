"""microspore.dataset's submodules, and WaitedDSCallback synchronized with Model.train
(the event order is MindSpore 2.10's for its own documentation example)."""

import microspore as ms
import microspore.dataset as ds
from microspore import nn


def test_submodules_import_as_in_mindspore():
    import microspore.dataset.callback as callback
    import microspore.dataset.core as core
    import microspore.dataset.debug as debug
    import microspore.dataset.engine as engine
    import microspore.dataset.text as text
    import microspore.dataset.utils as utils

    assert text.Vocab.from_list(["a"]).vocab() == {"a": 0}
    assert engine.MapDataset.__name__ == "MapDataset" and engine.MnistDataset is ds.MnistDataset
    assert core.config.get_callback_timeout() == 60
    assert utils.LineReader is ds.LineReader and debug.DebugHook is ds.DebugHook
    assert callback.DSCallback is ds.DSCallback and ds.WaitedDSCallback is callback.WaitedDSCallback
    assert issubclass(ds.WaitedDSCallback, ms.Callback)


class Waited(ds.WaitedDSCallback):
    def __init__(self, events):
        super().__init__(1)
        self.events = events

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        self.events.append(f"ds_epoch_begin_{ds_run_context.cur_epoch_num}_"
                           f"{ds_run_context.cur_step_num}")

    def sync_step_begin(self, train_run_context, ds_run_context):
        self.events.append(f"ds_step_begin_{ds_run_context.cur_epoch_num}_"
                           f"{ds_run_context.cur_step_num}")


class Trained(ms.Callback):
    def __init__(self, events):
        self.events = events

    def epoch_end(self, run_context):
        p = run_context.original_args()
        self.events.append(f"ms_epoch_end_{p.cur_epoch_num}_{p.cur_step_num}")

    def step_end(self, run_context):
        p = run_context.original_args()
        self.events.append(f"ms_step_end_{p.cur_epoch_num}_{p.cur_step_num}")


class Net(nn.Cell):
    def construct(self, x, y):
        return x


def test_waited_callback_follows_training_like_mindspore():
    events = []
    waited = Waited(events)
    arr = [1, 2, 3, 4]
    data = ds.NumpySlicesDataset((arr, arr), column_names=["c1", "c2"], shuffle=False)
    data = data.map(operations=(lambda x: x), callbacks=waited)
    ms.train.Model(Net()).train(2, data, dataset_sink_mode=False,
                                callbacks=[Trained(events), waited])
    assert events == [
        "ms_step_end_1_1", "ds_step_begin_1_2", "ms_step_end_1_2", "ds_step_begin_1_3",
        "ms_step_end_1_3", "ds_step_begin_1_4", "ms_step_end_1_4", "ms_epoch_end_1_4",
        "ds_epoch_begin_2_4", "ds_step_begin_2_5", "ms_step_end_2_5", "ds_step_begin_2_6",
        "ms_step_end_2_6", "ds_step_begin_2_7", "ms_step_end_2_7", "ds_step_begin_2_8",
        "ms_step_end_2_8", "ms_epoch_end_2_8"]
