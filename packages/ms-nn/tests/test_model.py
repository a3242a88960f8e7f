"""Model.train / eval / predict with MindSpore's epoch, sink and callback semantics."""

import importlib.util
import pathlib

import numpy as np
import pytest

from ms_nn.train import Callback, Model
from ms_nn.train.metrics import Accuracy, Loss
from ms_nn.wrap import TrainOneStepCell, WithLossCell

# Every test here runs in PYNATIVE_MODE and in GRAPH_MODE (conftest.py's ``mode``).
pytestmark = pytest.mark.usefixtures("mode")

# --import-mode=importlib keeps the tests folder off sys.path, so load the helpers by path.
_spec = importlib.util.spec_from_file_location(
    "_train_util", pathlib.Path(__file__).with_name("_train_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
ArrayDataset, make_parts = _util.ArrayDataset, _util.make_parts


class Recorder(Callback):
    def __init__(self):
        self.events = []

    def on_train_begin(self, rc):
        self.events.append(("begin",))

    def on_train_epoch_begin(self, rc):
        cb = rc.original_args()
        self.events.append(("epoch_begin", cb.cur_epoch_num, cb.cur_step_num))

    def on_train_step_end(self, rc):
        cb = rc.original_args()
        self.events.append(("step_end", cb.cur_epoch_num, cb.cur_step_num, cb.batch_num,
                            float(cb.net_outputs.asnumpy())))

    def on_train_epoch_end(self, rc):
        cb = rc.original_args()
        self.events.append(("epoch_end", cb.cur_epoch_num, cb.cur_step_num))

    def on_train_end(self, rc):
        self.events.append(("end",))

    def steps(self):
        return [e for e in self.events if e[0] == "step_end"]


def manual_losses(n_steps, order, seed=0):
    """Losses of a hand-written TrainOneStepCell loop over batches ``order``."""
    ds = ArrayDataset()
    net, loss, opt = make_parts(seed)
    step = TrainOneStepCell(WithLossCell(net, loss), opt)
    step.set_train(True)
    from ms_tensor import Tensor
    return [float(step(Tensor(ds.x[i]), Tensor(ds.y[i])).asnumpy()) for i in order[:n_steps]]


def test_train_fires_callbacks_per_step_and_matches_a_manual_loop():
    net, loss, opt = make_parts()
    rec = Recorder()
    Model(net, loss, opt).train(2, ArrayDataset(), callbacks=[rec])
    steps = rec.steps()
    assert [(s[1], s[2], s[3]) for s in steps] == \
        [(1 + i // 10, i + 1, 10) for i in range(20)]
    assert rec.events[0] == ("begin",) and rec.events[-1] == ("end",)
    assert ("epoch_begin", 2, 10) in rec.events and ("epoch_end", 2, 20) in rec.events
    np.testing.assert_allclose([s[4] for s in steps],
                               manual_losses(20, list(range(10)) * 2), rtol=1e-6)


def test_sink_mode_epochs_are_sink_size_steps_crossing_dataset_epochs():
    net, loss, opt = make_parts()
    ds = ArrayDataset()
    rec = Recorder()
    Model(net, loss, opt).train(3, ds, callbacks=[rec], dataset_sink_mode=True, sink_size=4)
    steps = rec.steps()
    # One step_end per sink; cur_step_num advances by sink_size; batch_num is sink_size.
    assert [(s[1], s[2], s[3]) for s in steps] == [(1, 4, 4), (2, 8, 4), (3, 12, 4)]
    assert ds.served[:12] == list(range(10)) + [0, 1]
    assert steps[-1][4] == pytest.approx(manual_losses(12, ds.served)[-1], rel=1e-6)


def test_sink_mode_without_sink_size_is_one_sink_per_dataset_pass():
    net, loss, opt = make_parts()
    rec = Recorder()
    Model(net, loss, opt).train(2, ArrayDataset(), callbacks=[rec], dataset_sink_mode=True)
    assert [(s[1], s[2], s[3]) for s in rec.steps()] == [(1, 10, 10), (2, 20, 10)]


def test_sink_size_is_ignored_without_sink_mode():
    net, loss, opt = make_parts()
    rec = Recorder()
    Model(net, loss, opt).train(1, ArrayDataset(), callbacks=[rec], sink_size=4)
    assert len(rec.steps()) == 10


def test_plain_iterable_of_numpy_batches():
    ds = ArrayDataset()
    batches = [(ds.x[i], ds.y[i]) for i in range(10)]
    net, loss, opt = make_parts()
    rec = Recorder()
    Model(net, loss, opt).train(2, batches, callbacks=rec)
    np.testing.assert_allclose([s[4] for s in rec.steps()],
                               manual_losses(20, list(range(10)) * 2), rtol=1e-6)


def test_request_stop_ends_after_the_step_with_epoch_end():
    class Stop(Callback):
        def on_train_step_end(self, rc):
            if rc.original_args().cur_step_num == 3:
                rc.request_stop()

    net, loss, opt = make_parts()
    rec = Recorder()
    Model(net, loss, opt).train(5, ArrayDataset(), callbacks=[Stop(), rec])
    assert len(rec.steps()) == 3
    assert rec.events[-2:] == [("epoch_end", 1, 3), ("end",)]


def test_initial_epoch_runs_the_remaining_epochs():
    net, loss, opt = make_parts()
    rec = Recorder()
    Model(net, loss, opt).train(3, ArrayDataset(), callbacks=rec, initial_epoch=1)
    steps = rec.steps()
    assert (steps[0][1], steps[0][2]) == (2, 11) and (steps[-1][1], steps[-1][2]) == (3, 30)


def test_eval_returns_metrics_dict_and_switches_to_inference():
    net, loss, opt = make_parts()
    ds = ArrayDataset()
    model = Model(net, loss, opt, metrics={"acc": Accuracy(), "loss": Loss()})
    model.train(1, ds)
    assert net.training
    result = model.eval(ds)
    assert not net.training
    assert set(result) == {"acc", "loss"}
    logits = np.concatenate([model.predict(ds.x[i]).asnumpy() for i in range(10)])
    expected_acc = (logits.argmax(1) == ds.y.reshape(-1)).mean()
    assert result["acc"] == pytest.approx(expected_acc)
    per_batch = [float(loss(model.predict(ds.x[i]), _t(ds.y[i])).asnumpy()) for i in range(10)]
    assert result["loss"] == pytest.approx(np.mean(per_batch), rel=1e-6)


def _t(a):
    from ms_tensor import Tensor
    return Tensor(a)


def test_eval_callbacks_see_metrics():
    seen = {}

    class EvalCb(Callback):
        def on_eval_step_end(self, rc):
            seen["outputs"] = len(rc.original_args().net_outputs)

        def on_eval_end(self, rc):
            seen["metrics"] = rc.original_args().metrics

    net, loss, opt = make_parts()
    result = Model(net, loss, opt, metrics={"accuracy"}).eval(ArrayDataset(), callbacks=EvalCb())
    assert seen == {"outputs": 3, "metrics": result}


def test_eval_without_metrics_is_an_error():
    net, loss, opt = make_parts()
    with pytest.raises(ValueError, match="metrics can not be None or empty"):
        Model(net, loss, opt).eval(ArrayDataset())


def test_train_argument_errors():
    net, loss, opt = make_parts()
    model = Model(net, loss, opt)
    with pytest.raises(ValueError, match="epoch must be a positive int, got 0"):
        model.train(0, ArrayDataset())
    with pytest.raises(ValueError, match="sink_size must be -1 or a positive int"):
        model.train(1, ArrayDataset(), sink_size=0)
    with pytest.raises(TypeError, match="create_tuple_iterator"):
        model.train(1, 42)


def test_model_without_optimizer_trains_a_given_train_network():
    net, loss, opt = make_parts()
    step = TrainOneStepCell(WithLossCell(net, loss), opt)
    rec = Recorder()
    Model(step).train(1, ArrayDataset(), callbacks=rec)
    np.testing.assert_allclose([s[4] for s in rec.steps()], manual_losses(10, list(range(10))),
                               rtol=1e-6)


def test_fit_evaluates_and_feeds_early_stopping():
    from ms_nn.train import EarlyStopping
    net, loss, opt = make_parts()
    model = Model(net, loss, opt, metrics={"acc": Accuracy(), "loss": Loss()})
    stopper = EarlyStopping(monitor="eval_loss", patience=1, min_delta=100.0)
    rec = Recorder()
    model.fit(5, ArrayDataset(), ArrayDataset(seed=1), callbacks=[stopper, rec])
    assert stopper.stopped_epoch == 2
    assert [e[1] for e in rec.events if e[0] == "epoch_end"] == [1, 2]
