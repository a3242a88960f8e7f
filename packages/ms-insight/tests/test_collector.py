import numpy as np
import pytest

from ms_insight import SummaryCollector
from ms_insight.lineage import read_lineage
from ms_tensor import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context


@pytest.fixture(params=[PYNATIVE_MODE, GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    previous = get_context("mode")
    set_context(mode=request.param)
    yield request.param
    set_context(mode=previous)


def test_collector_records_loss_lr_images_histograms_graph_and_lineage(
        tmp_path, mode, lenet, read_events):
    model, net = lenet.model(lr=0.05, metrics={"accuracy"})
    data = lenet.batches(6)
    collector = SummaryCollector(tmp_path / "run", collect_freq=2,
                                 custom_lineage_data={"note": "unit"})
    model.train(2, data, callbacks=[collector])
    model.eval(data[:2], callbacks=[collector])
    ea = read_events(tmp_path / "run")
    loss_steps = [e.step for e in ea.Scalars("loss")]
    assert loss_steps == [1, 2, 4, 6, 8, 10, 12]  # the first step, then every 2nd
    assert all(np.isfinite(e.value) for e in ea.Scalars("loss"))
    assert {round(e.value, 6) for e in ea.Scalars("learning_rate")} == {0.05}
    assert len(ea.Images("input_data/auto")) == 7
    assert ea.Images("input_data/auto")[0].width == 3 * 32  # 8 images: 3 columns
    hist_tags = ea.Tags()["histograms"]
    assert len(hist_tags) == 5 and "conv1.weight/auto" in hist_tags
    assert [e.step for e in ea.Scalars("eval/accuracy")] == [12]
    nodes = [n.op for n in ea.Graph().node]
    assert nodes.count("Conv2D") == 2
    # GRAPH_MODE: the compiled training step; PyNative: the forward pass alone
    assert ("ApplyMomentum" in nodes) is (mode == GRAPH_MODE)
    lineage = read_lineage(tmp_path / "run")
    assert lineage["network"] == "LeNet5" and lineage["optimizer"] == "Momentum"
    assert lineage["summary_dir"] == str((tmp_path / "run").resolve())
    assert lineage["loss_function"] == "SoftmaxCrossEntropyWithLogits"
    assert lineage["hyper_parameters"] == {"epoch": 2, "steps_per_epoch": 6,
                                           "learning_rate": pytest.approx(0.05),
                                           "dataset_sink_mode": False}
    assert lineage["train_dataset"] == {"size": 6} and lineage["valid_dataset"] == {"size": 2}
    assert lineage["parameter_count"] == sum(p.size for p in net.trainable_params())
    assert 0 <= lineage["metrics"]["accuracy"] <= 1
    assert np.isfinite(lineage["train_loss"]) and lineage["custom_lineage_data"] == {
        "note": "unit"}


def test_collector_lineage_names_the_checkpoint(tmp_path, lenet):
    from ms_nn.train.callbacks.checkpoint import CheckpointConfig, ModelCheckpoint

    model, _ = lenet.model()
    ckpt = ModelCheckpoint("lenet", str(tmp_path / "ckpt"),
                           CheckpointConfig(save_checkpoint_steps=3))
    # the collector comes first: the checkpoint saved at the end is still found
    model.train(1, lenet.batches(3), callbacks=[SummaryCollector(tmp_path / "run", 10), ckpt])
    path = read_lineage(tmp_path / "run")["checkpoint"]
    assert path == ckpt.latest_ckpt_file_name and path.endswith(".ckpt")


def test_collect_specified_data_turns_parts_off(tmp_path, lenet, read_events):
    model, _ = lenet.model()
    collector = SummaryCollector(tmp_path, 1, collect_specified_data={
        "collect_metric": True, "histogram_regular": r"^fc3\."}, keep_default_action=False)
    model.train(1, lenet.batches(2), callbacks=collector)
    tags = read_events(tmp_path).Tags()
    assert sorted(tags["scalars"]) == ["learning_rate", "loss"]
    assert sorted(tags["histograms"]) == ["fc3.bias/auto", "fc3.weight/auto"]
    assert tags["images"] == [] and tags["graph"] is False
    assert read_lineage(tmp_path) is None


def test_graph_of_a_model_given_a_train_cell(tmp_path, lenet, read_events):
    """``Model(TrainOneStepCell(...))``: the loss network is captured on the whole batch,
    without running the optimizer (the weights stay as they were)."""
    import warnings

    import ms_nn as nn
    from ms_nn.train.model import Model

    net = lenet.LeNet5()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                 reduction="mean"))
    train = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    collector = SummaryCollector(tmp_path, 1, collect_specified_data={
        "collect_graph": True}, keep_default_action=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "graph is not recorded" warning
        Model(train).train(1, lenet.batches(1), callbacks=collector)
    nodes = [n.op for n in read_events(tmp_path).Graph().node]
    assert nodes.count("Conv2D") == 2 and "ApplyMomentum" not in nodes


def test_dataset_graph_goes_to_the_lineage_and_its_table(tmp_path, lenet):
    # ms-data is no dependency of ms-insight (the walk is duck-typed); this runs where it
    # is installed, and integration_tests/insight checks a real MNIST pipeline
    ds = pytest.importorskip("ms_data")
    from ms_insight.lineage.table import format_table

    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset(
        {"image": rng.random((8, 1, 32, 32), dtype=np.float32),
         "label": rng.integers(0, 10, 8).astype(np.int32)}, shuffle=False)
    data = data.map(operations=[lambda a: a * 2], input_columns="image").batch(4)
    model, _ = lenet.model()
    model.train(1, data, callbacks=[SummaryCollector(tmp_path / "run", 10)])
    graph = read_lineage(tmp_path / "run")["dataset_graph"]
    assert graph["op_type"] == "BatchDataset" and graph["params"]["batch_size"] == 4
    (mapped,) = graph["children"]
    assert mapped["params"]["operations"] == ["<lambda>"]
    source = mapped["children"][0]
    assert source["params"]["arrays"] == ["ndarray(8, 1, 32, 32) float32",
                                          "ndarray(8,) int32"]  # shapes, never data
    table = format_table({"run": read_lineage(tmp_path / "run")}, fields=["dataset_graph"])
    assert table.splitlines()[1].split(None, 1)[1] == (
        "NumpySlicesDataset -> MapDataset[<lambda>] -> BatchDataset(batch_size=4)")
    off = SummaryCollector(tmp_path / "off", 10,
                           collect_specified_data={"collect_dataset_graph": False})
    model.train(1, data, callbacks=[off])
    assert "dataset_graph" not in read_lineage(tmp_path / "off")


@pytest.mark.parametrize("kwargs, error, match", [
    ({"collect_freq": 0}, ValueError, "collect_freq"),
    ({"collect_specified_data": {"collect_everything": True}}, ValueError, "unknown"),
    ({"collect_specified_data": {"collect_landscape": {"x": 1}}}, ValueError,
         "unknown collect_landscape keys"),
    ({"collect_specified_data": {"histogram_regular": "("}}, ValueError, "regular expression"),
    ({"custom_lineage_data": {"a": [1]}}, TypeError, "custom_lineage_data"),
])
def test_collector_rejects_bad_settings(tmp_path, kwargs, error, match):
    with pytest.raises(error, match=match):
        SummaryCollector(tmp_path, **kwargs)


def test_compiled_graph_is_the_one_just_run(mode, lenet):
    from ms_insight.summary.network_graph import compiled_graph

    net = lenet.LeNet5()
    assert compiled_graph(net) is None
    x = lenet.batches(1, batch=2)[0][0]
    net(x)
    net(lenet.batches(1, batch=3)[0][0])  # a second signature: a second graph
    graph = compiled_graph(net)
    if mode == PYNATIVE_MODE:
        assert graph is None
    else:
        assert len(net.compiled_graphs()) == 2 and graph.inputs[0].spec.shape[0] == 3
        net(x)  # the first signature again: now the most recent
        assert compiled_graph(net).inputs[0].spec.shape[0] == 2


def test_collect_tensor_freq_keeps_tensor_summaries_at_its_multiples(tmp_path, lenet,
                                                                      read_events):
    import ms_nn as nn
    from ms_insight.summary.ops import TensorSummary

    class Logged(lenet.LeNet5):
        def __init__(self):
            super().__init__()
            self.tensor = TensorSummary.primitive()

        def construct(self, x):
            out = super().construct(x)
            self.tensor("logits", out)
            return out

    from ms_nn.train.model import Model

    net = Logged()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.01, 0.9))
    collector = SummaryCollector(tmp_path, collect_freq=1, collect_tensor_freq=3)
    model.train(1, lenet.batches(7), callbacks=[collector])
    ea = read_events(tmp_path)
    assert [e.step for e in ea.Scalars("loss")] == [1, 2, 3, 4, 5, 6, 7]
    assert [e.step for e in ea.Tensors("logits")] == [3, 6]


def test_default_tensor_steps_are_at_most_twenty_spread_over_the_run(tmp_path):
    assert SummaryCollector(tmp_path, 10)._tensor_range(100) is None  # 11 recorded steps
    steps = SummaryCollector(tmp_path, 1)._tensor_range(600)
    assert len(steps) == 20 and steps[1] == 600 // 19
    assert list(SummaryCollector(tmp_path, 1, collect_tensor_freq=250)._tensor_range(600)) \
        == [0, 250, 500]
    with pytest.raises(ValueError, match="collect_tensor_freq must be None or a positive int"):
        SummaryCollector(tmp_path, collect_tensor_freq=0)
    with pytest.raises(ValueError, match="export_options"):
        SummaryCollector(tmp_path, export_options={"tensor_format": "npy"})
