import numpy as np
import pytest

import ms_nn as nn
from ms_insight import SummaryRecord
from ms_insight.summary.ops import HistogramSummary, ImageSummary, ScalarSummary, TensorSummary
from ms_tensor import GRAPH_MODE, PYNATIVE_MODE, Tensor, get_context, set_context


@pytest.fixture(params=[PYNATIVE_MODE, GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    previous = get_context("mode")
    set_context(mode=request.param)
    yield request.param
    set_context(mode=previous)


class Summarized(nn.Cell):
    """Every kind of summary inside construct, one of them of a constant."""

    def __init__(self):
        super().__init__()
        self.scalar = ScalarSummary.primitive()
        self.image = ImageSummary.primitive()
        self.histogram = HistogramSummary.primitive()
        self.tensor = TensorSummary.primitive()

    def construct(self, x):
        y = x * 2.0
        self.scalar("y_sum", y.sum())
        self.scalar("const", Tensor(np.float32(3.0)))
        self.image("x_image", x)
        self.histogram("y", y)
        self.tensor("y_tensor", y)
        return x + 1.0


def test_summary_operators_record_every_call_in_both_modes(tmp_path, mode, read_events):
    net = Summarized()
    with SummaryRecord(tmp_path) as record:
        for step in (1, 2, 3):
            out = net(Tensor(np.full((1, 1, 2, 2), float(step), np.float32)))
            np.testing.assert_array_equal(out.asnumpy(), np.full((1, 1, 2, 2), step + 1.0))
            record.record(step, train_network=net)
    ea = read_events(tmp_path)
    assert [(e.step, e.value) for e in ea.Scalars("y_sum")] == [(1, 8.0), (2, 16.0), (3, 24.0)]
    assert [e.value for e in ea.Scalars("const")] == [3.0, 3.0, 3.0]
    assert [e.histogram_value.max for e in ea.Histograms("y")] == [2.0, 4.0, 6.0]
    assert len(ea.Images("x_image")) == 3 and len(ea.Tensors("y_tensor")) == 3
    # GRAPH_MODE records the compiled graph given as train_network; PyNative has none.
    assert ea.Tags()["graph"] is (mode == GRAPH_MODE)
    if mode == GRAPH_MODE:
        assert [n.op for n in ea.Graph().node].count("ScalarSummary") == 2


def test_graph_passes_keep_summaries_that_nothing_reads():
    from ms_graph.jit import compile

    def fn(x):
        ScalarSummary("a", Tensor(np.float32(1.0)) + 1.0)  # constant: foldable if pure
        ScalarSummary("a", Tensor(np.float32(1.0)) + 1.0)  # identical: mergeable if pure
        HistogramSummary("h", x)  # unused output: dead code if pure
        return x * 2.0

    compiled = compile(fn, Tensor(np.ones(3, np.float32)))
    names = [n.name for n in compiled.graph.nodes]
    assert names.count("ScalarSummary") == 2 and names.count("HistogramSummary") == 1


def test_summaries_cost_nothing_without_an_open_record(tmp_path, read_events):
    from ms_insight.summary import _pending

    ScalarSummary("lost", Tensor(np.float32(1.0)))  # nobody records: not kept
    assert not _pending.recording() and _pending.take() == {}
    with SummaryRecord(tmp_path) as record:
        ScalarSummary("kept", Tensor(np.float32(2.0)))
        record.record(1)
    assert read_events(tmp_path).Tags()["scalars"] == ["kept"]


def test_summary_inside_a_differentiated_function_does_not_change_the_gradient(tmp_path):
    from ms_autodiff import grad

    def f(x):
        ScalarSummary("x_sum", x.sum())
        return (x * x).sum()

    with SummaryRecord(tmp_path) as record:
        g = grad(f)(Tensor(np.array([1.0, 2.0], np.float32)))
        record.record(1)
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])


@pytest.mark.parametrize("op, args, error, match", [
    (ScalarSummary, ("s", np.ones(3, np.float32)), ValueError, r"shape \(\) or \(1,\)"),
    (ImageSummary, ("i", np.ones((2, 2), np.float32)), ValueError, "NCHW"),
    (ImageSummary, ("i", np.ones((1, 2, 3, 3), np.float32)), ValueError, "1, 3 or 4"),
    (HistogramSummary, ("h", np.ones((0, 2), np.float32)), ValueError, "must not be empty"),
    (TensorSummary, ("", np.ones(2, np.float32)), TypeError, "non-empty str"),
    (TensorSummary, (3, np.ones(2, np.float32)), TypeError, "non-empty str"),
])
def test_summary_operators_reject_bad_inputs_by_name(op, args, error, match):
    with pytest.raises(error, match=f"{op.name}: .*{match}"):
        op(args[0], Tensor(args[1]))


def test_summary_operators_are_registered_and_pass_the_operator_suites():
    from ms_autodiff.testing import check_op_gradients
    from ms_tensor import registry

    reg = registry.load()
    for op in (ScalarSummary, ImageSummary, HistogramSummary, TensorSummary):
        assert reg.primitive(op.name) is op and reg.entry("primitive", op.name).plugin == \
            "insight"
        assert not op.differentiable and op.side_effect_io
        check_op_gradients(op, op.samples_fn)  # bool output: no derivative to check


def test_summary_in_a_compiled_training_step_records_each_steps_loss(tmp_path, mode, lenet,
                                                                     read_events):
    class WithSummary(nn.Cell):
        def __init__(self, net, loss_fn):
            super().__init__()
            self.net, self.loss_fn = net, loss_fn
            self.summary = ScalarSummary.primitive()

        def construct(self, x, y):
            loss = self.loss_fn(self.net(x), y)
            self.summary("loss", loss)
            return loss

    net = lenet.LeNet5()
    train = nn.TrainOneStepCell(
        WithSummary(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
        nn.Momentum(net.trainable_params(), 0.01, 0.9))
    train.set_train()
    x, y = lenet.batches(1)[0]
    with SummaryRecord(tmp_path) as record:
        losses = []
        for step in (1, 2, 3):
            losses.append(float(train(x, y).asnumpy()))
            record.record(step, train_network=train)
    assert [e.value for e in read_events(tmp_path).Scalars("loss")] == \
        pytest.approx(losses, rel=1e-6)
    assert losses[2] < losses[0]  # the optimizer stepped: each record is that step's loss
    if mode == GRAPH_MODE:  # the whole step is one graph, the summary and update in it
        ops = {n.op for n in read_events(tmp_path).Graph().node}
        assert {"ScalarSummary", "ApplyMomentum", "Conv2DBackpropFilter"} <= ops


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16", "int8",
                                   "int32", "int64", "uint8", "bool_"])
def test_summaries_keep_the_values_of_every_dtype(tmp_path, dtype, read_events):
    from tensorboard.util import tensor_util

    from ms_tensor import dtype as mstype

    values = np.array([[0, 1, 2], [3, 4, 5]]) % (2 if dtype == "bool_" else 6)
    t = Tensor(values, getattr(mstype, dtype))
    with SummaryRecord(tmp_path) as record:
        TensorSummary("t", t)
        HistogramSummary("h", t)
        ScalarSummary("s", t[1, 2])
        record.record(1)
    ea = read_events(tmp_path)
    got = tensor_util.make_ndarray(ea.Tensors("t")[0].tensor_proto)
    np.testing.assert_array_equal(got.astype(np.float64), values)
    assert ea.Histograms("h")[0].histogram_value.sum == values.sum()
    assert ea.Scalars("s")[0].value == values[1, 2]


class Branchy(nn.Cell):
    """Summaries in both branches of a tensor-dependent if and in a while loop body."""

    def __init__(self):
        super().__init__()
        self.summary = ScalarSummary.primitive()

    def construct(self, x):
        if x.sum() > 0:
            self.summary("branch", x.sum())
            self.summary("positive", x.sum())
            y = x * 2.0
        else:
            self.summary("branch", -x.sum())
            self.summary("negative", x.sum())
            y = x * 3.0
        i = Tensor(np.float32(0.0))
        while i < x.sum():
            self.summary("loop", i)
            i = i + 1.0
        return y


def test_summaries_in_control_flow_record_what_pynative_records(tmp_path, read_events):
    """Capture runs both branches (and a loop body once) to record them: only the code
    the data take may write a summary, at the capturing call as at every later one."""
    def run(mode, directory):
        previous = get_context("mode")
        set_context(mode=mode)
        try:
            net = Branchy()
            with SummaryRecord(directory) as record:
                for step, v in enumerate([1.0, -1.0, 1.5, -2.0], 1):
                    net(Tensor(np.full(2, v, np.float32)))
                    record.record(step)
        finally:
            set_context(mode=previous)
        ea = read_events(directory)
        return {tag: [(e.step, e.value) for e in ea.Scalars(tag)]
                for tag in sorted(ea.Tags()["scalars"])}

    eager = run(PYNATIVE_MODE, tmp_path / "eager")
    assert eager == {"branch": [(1, 2.0), (2, 2.0), (3, 3.0), (4, 4.0)],
                     "positive": [(1, 2.0), (3, 3.0)], "negative": [(2, -2.0), (4, -4.0)],
                     "loop": [(1, 1.0), (3, 2.0)]}
    assert run(GRAPH_MODE, tmp_path / "graph") == eager
