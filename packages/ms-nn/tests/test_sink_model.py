"""Data sink through Model, data_sink and connect_network_with_dataset: the seed's
semantics (001: epochs of sink_size steps, one LossMonitor line per sink), losses equal to
the non-sink run over the same batches, and no thread left behind."""

import importlib.util
import pathlib
import threading
import time

import numpy as np
import pytest
from ms_graph.sink import DataStarvedError

from ms_nn.train import (
    Callback,
    DatasetHelper,
    LossMonitor,
    Model,
    connect_network_with_dataset,
    data_sink,
)
from ms_nn.train.sink import get_sink_timeout, set_sink_timeout
from ms_nn.wrap import TrainOneStepCell, WithLossCell
from ms_tensor import Tensor
from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, set_context

MODES = [PYNATIVE_MODE, GRAPH_MODE]
# --import-mode=importlib keeps the tests folder off sys.path, so load the helpers by path.
_spec = importlib.util.spec_from_file_location(
    "_train_util", pathlib.Path(__file__).with_name("_train_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
ArrayDataset, make_parts = _util.ArrayDataset, _util.make_parts


class Steps(Callback):
    def __init__(self):
        self.rows = []

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        self.rows.append((cb.cur_epoch_num, cb.cur_step_num, cb.batch_num,
                          float(cb.net_outputs.asnumpy())))


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    set_context(mode=request.param)
    yield request.param
    set_context(mode=PYNATIVE_MODE)


def feeders():
    return [t for t in threading.enumerate() if t.name.startswith("ms-sink-feeder")]


def per_step_losses(n_steps, ds):
    """The non-sink run: one epoch at a time, every step's loss."""
    rec = Steps()
    net, loss, opt = make_parts()
    Model(net, loss, opt).train(-(-n_steps // ds.get_dataset_size()), ds, callbacks=[rec])
    return [r[3] for r in rec.rows][:n_steps]


def test_seed_ratios_epoch_10_sink_size_1000_of_1875_batches(mode, capsys):
    # The seed: 1875 batches, epoch=10, sink_size=1000 -> 10,000 steps, 10 LossMonitor
    # lines "epoch: E step: 1000". Same ratios, small: 15 batches, sink_size 8.
    ds = ArrayDataset(n_batches=15)
    rec = Steps()
    net, loss, opt = make_parts()
    Model(net, loss, opt).train(10, ds, callbacks=[rec, LossMonitor()],
                                dataset_sink_mode=True, sink_size=8)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 10
    assert [ln.split(", loss")[0] for ln in lines] == \
        [f"epoch: {e} step: 8" for e in range(1, 11)]
    assert [(r[0], r[1], r[2]) for r in rec.rows] == [(e, 8 * e, 8) for e in range(1, 11)]
    # 80 steps read the dataset 6 times over (80/15), continuing where the last sink ended
    assert len(ds.served) >= 80 and ds.served[:80] == (list(range(15)) * 6)[:80]
    want = per_step_losses(80, ArrayDataset(n_batches=15))
    assert [r[3] for r in rec.rows] == [want[8 * e - 1] for e in range(1, 11)]
    assert not feeders()


def test_sink_size_minus_one_is_the_plain_loop_one_sink_per_epoch(mode):
    rec = Steps()
    net, loss, opt = make_parts()
    Model(net, loss, opt).train(3, ArrayDataset(), callbacks=[rec], dataset_sink_mode=True)
    want = per_step_losses(30, ArrayDataset())
    assert [(r[0], r[1], r[2]) for r in rec.rows] == [(1, 10, 10), (2, 20, 10), (3, 30, 10)]
    assert [r[3] for r in rec.rows] == [want[9], want[19], want[29]]


def test_a_dataset_without_output_numpy_still_sinks(mode):
    """The feeder asks the dataset for numpy batches (output_numpy=True); one whose
    create_tuple_iterator takes only num_epochs gives its Tensors instead."""
    class OnlyEpochs(ArrayDataset):
        def create_tuple_iterator(self, num_epochs=-1):
            return super().create_tuple_iterator(num_epochs)

    rec = Steps()
    net, loss, opt = make_parts()
    Model(net, loss, opt).train(2, OnlyEpochs(), callbacks=[rec], dataset_sink_mode=True,
                                sink_size=4)
    want = per_step_losses(8, ArrayDataset())
    assert [r[3] for r in rec.rows] == [want[3], want[7]]
    assert not feeders()


def test_graph_sink_equals_pynative_sink():
    out = {}
    for m in MODES:
        set_context(mode=m)
        rec = Steps()
        net, loss, opt = make_parts()
        Model(net, loss, opt).train(4, ArrayDataset(), callbacks=[rec],
                                    dataset_sink_mode=True, sink_size=7)
        out[m] = ([r[3] for r in rec.rows], net.weight.asnumpy().copy())
    set_context(mode=PYNATIVE_MODE)
    assert out[GRAPH_MODE][0] == out[PYNATIVE_MODE][0]
    np.testing.assert_array_equal(out[GRAPH_MODE][1], out[PYNATIVE_MODE][1])


def test_eval_with_sink_equals_eval_without(mode):
    net, loss, opt = make_parts()
    model = Model(net, loss, opt, metrics={"acc", "loss"})
    assert model.eval(ArrayDataset(), dataset_sink_mode=True) == \
        model.eval(ArrayDataset(), dataset_sink_mode=False)
    assert not feeders()


def test_a_callback_error_and_ctrl_c_stop_the_feeder(mode):
    class Boom(Callback):
        def __init__(self, exc):
            self.exc = exc

        def on_train_step_end(self, run_context):
            raise self.exc

    for exc in (ValueError("boom"), KeyboardInterrupt()):
        net, loss, opt = make_parts()
        with pytest.raises(type(exc)):
            Model(net, loss, opt).train(5, ArrayDataset(), callbacks=[Boom(exc)],
                                        dataset_sink_mode=True, sink_size=3)
        assert not feeders()


def test_a_slow_dataset_gets_the_seeds_diagnosis_not_a_hang(mode):
    class Slow(ArrayDataset):
        def create_tuple_iterator(self, num_epochs=-1, **kwargs):
            def gen():
                yield [Tensor(self.x[0]), Tensor(self.y[0])]
                time.sleep(1.2)  # one sample that takes too long to process
                yield [Tensor(self.x[1]), Tensor(self.y[1])]
            return gen()

    before = get_sink_timeout()
    set_sink_timeout(0.3)
    try:
        net, loss, opt = make_parts()
        start = time.monotonic()
        with pytest.raises(DataStarvedError, match="data processing is too slow.*"
                                                     "inside .*gen at "):
            Model(net, loss, opt).train(1, Slow(), dataset_sink_mode=True, sink_size=2)
        # raised after 0.3 s; the rest is close() waiting for the slow sample to end,
        # so that no feeder thread outlives the run
        assert time.monotonic() - start < 2.5
        assert not feeders()
    finally:
        set_sink_timeout(before)
    with pytest.raises(ValueError, match="positive number"):
        set_sink_timeout(0)


def test_data_sink_runs_sink_size_steps_per_call(mode):
    want = per_step_losses(12, ArrayDataset())
    net, loss, opt = make_parts()
    step = TrainOneStepCell(WithLossCell(net, loss), opt)
    with data_sink(step, ArrayDataset(), sink_size=4) as sink:
        got = [float(sink().asnumpy()) for _ in range(3)]
    assert got == [want[3], want[7], want[11]]
    assert not feeders()


def test_data_sink_with_jit_config_compiles_a_function_step():
    want = per_step_losses(6, ArrayDataset())
    net, loss, opt = make_parts()
    step = TrainOneStepCell(WithLossCell(net, loss), opt)

    def train_step(x, y):
        return step(x, y)

    sink = data_sink(train_step, ArrayDataset(), sink_size=3, jit_config={"jit_level": "O1"})
    got = [float(sink().asnumpy()) for _ in range(2)]
    assert sink._runner.compiles == 1
    sink.close()
    assert got == [want[2], want[5]]
    with pytest.raises(ValueError, match="sink_size"):
        data_sink(train_step, ArrayDataset(), sink_size=0)
    with pytest.raises(TypeError, match="takes no arguments"):
        with data_sink(train_step, ArrayDataset()) as s:
            s(1)


def test_dataset_helper_and_connect_network_with_dataset(mode):
    want = per_step_losses(10, ArrayDataset())
    net, loss, opt = make_parts()
    step = TrainOneStepCell(WithLossCell(net, loss), opt)
    helper = DatasetHelper(ArrayDataset(), dataset_sink_mode=True, sink_size=5)
    sunk = connect_network_with_dataset(step, helper)
    assert len(helper) == 2
    got = [float(sunk(*inputs).asnumpy()) for inputs in helper]
    helper.stop_send()
    assert got == [want[4], want[9]]
    assert not feeders()
    plain = DatasetHelper(ArrayDataset(), dataset_sink_mode=False)
    assert connect_network_with_dataset(step, plain) is step
    assert len(list(plain)) == 10
