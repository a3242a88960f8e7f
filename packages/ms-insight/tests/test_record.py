import io

import numpy as np
import pytest
from PIL import Image
from tensorboard.util import tensor_util

from ms_insight import SummaryRecord
from ms_tensor import Tensor


def test_record_scalars_images_histograms_tensors_read_back(tmp_path, read_events):
    rng = np.random.default_rng(0)
    weights = rng.standard_normal(500)
    with SummaryRecord(tmp_path) as record:
        for step in (1, 2, 3):
            record.add_value("scalar", "loss", Tensor(np.float32(1.0 / step)))
            record.add_value("histogram", "w", weights * step)
            record.record(step)
        record.add_value("image", "img", np.linspace(0, 1, 2 * 3 * 4 * 5).reshape(2, 3, 4, 5))
        record.add_value("tensor", "t", np.arange(6, dtype=np.int32).reshape(2, 3))
        record.record(4)
    ea = read_events(tmp_path)
    assert [(e.step, round(e.value, 6)) for e in ea.Scalars("loss")] == \
        [(1, 1.0), (2, 0.5), (3, round(1 / 3, 6))]
    hist = ea.Histograms("w")[2].histogram_value
    assert hist.num == 500 and hist.max == pytest.approx(3 * weights.max())
    assert sum(hist.bucket) == 500 and hist.sum == pytest.approx(3 * weights.sum())
    image = ea.Images("img")[0]
    pixels = np.asarray(Image.open(io.BytesIO(image.encoded_image_string)))
    assert (image.height, image.width) == (4, 10) and pixels.shape == (4, 10, 3)  # 2 tiles
    tensor = tensor_util.make_ndarray(ea.Tensors("t")[0].tensor_proto)
    np.testing.assert_array_equal(tensor, np.arange(6).reshape(2, 3))


def test_image_grid_scales_unit_floats_and_stretches_others():
    from ms_insight.summary.values import image_grid

    unit = image_grid("u", np.full((1, 1, 2, 2), 0.5))
    assert unit.dtype == np.uint8 and (unit == 128).all()
    wide = image_grid("w", np.array([-1.0, 0.0, 1.0, 3.0]).reshape(1, 1, 2, 2))
    assert wide[0, 0, 0] == 0 and wide[1, 1, 0] == 255
    assert image_grid("n", np.zeros((5, 3, 2, 2))).shape == (4, 6, 3)  # 2 rows of 3, 5 used


@pytest.mark.parametrize("plugin, value, match", [
    ("scalar", np.ones(3), "one element"),
    ("image", np.ones((3, 8, 8)), "4-D NCHW"),
    ("image", np.ones((1, 2, 8, 8)), "1, 3 or 4 channels"),
    ("histogram", np.ones(0), "at least one value"),
    ("tensor", np.array(["a"]), "must be numbers"),
    ("audio", 1.0, "unknown plugin"),
])
def test_add_value_rejects_what_cannot_be_recorded(tmp_path, plugin, value, match):
    with SummaryRecord(tmp_path) as record, pytest.raises(ValueError, match=match):
        record.add_value(plugin, "tag", value)


def test_record_errors_name_the_problem(tmp_path):
    record = SummaryRecord(tmp_path)
    with pytest.raises(TypeError, match="must be a Tensor"):
        record.add_value("scalar", "x", "1.0")
    with pytest.raises(TypeError, match="step must be an int"):
        record.record(1.5)
    record.set_mode("eval")
    assert record.mode == "eval"
    with pytest.raises(ValueError, match="'train' or 'eval'"):
        record.set_mode("test")
    record.close()
    record.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        record.record(1)
    with pytest.raises(ValueError, match="file_prefix"):
        SummaryRecord(tmp_path, file_prefix="other")
    (tmp_path / "f").write_text("")
    with pytest.raises(NotADirectoryError, match="is a file"):
        SummaryRecord(tmp_path / "f")


def test_file_is_named_for_tensorboard_and_flush_writes(tmp_path, read_events):
    record = SummaryRecord(tmp_path / "run")
    assert "events.out.tfevents." in record.event_file_name
    assert record.event_file_name.endswith("_MS")
    record.add_value("scalar", "a", 2.0)
    record.record(7)
    record.flush()  # readable before close
    assert [e.step for e in read_events(tmp_path / "run").Scalars("a")] == [7]
    record.close()


def test_records_reach_the_writer_in_batches(tmp_path, read_events, monkeypatch):
    """``record`` only queues: the events are built and given to the writer by a worker,
    a batch at a time (at most once a second or by count), all of it by ``flush``."""
    import threading

    from ms_insight.summary import _batches

    record = SummaryRecord(tmp_path / "run")
    handed = []
    add_event = record._writer.add_event
    monkeypatch.setattr(record._writer, "add_event", lambda e: (
        handed.append((e.step, threading.current_thread().name)), add_event(e)))
    monkeypatch.setattr(_batches, "HAND_OVER_S", 3600.0)
    for step in range(1, 11):
        record.add_value("scalar", "a", float(step))
        record.record(step)
    batches = record._batches
    assert len(batches._batch) == 10 and not batches._pending  # all ten wait here
    for step in range(11, 11 + _batches.HAND_OVER_ITEMS):
        record.add_value("scalar", "a", float(step))
        record.record(step)
    for f in batches._pending:  # the batch handed over at the count, not the rest
        f.result()
    assert [s for s, _ in handed] == list(range(1, 1 + _batches.HAND_OVER_ITEMS))
    assert all(name.startswith("SummaryRecord") for _, name in handed)  # not this thread
    monkeypatch.setattr(_batches, "HAND_OVER_S", 0.0)
    record.add_value("scalar", "a", 0.5)
    record.record(99)  # the time limit reached: everything pending goes
    for f in batches._pending:
        f.result()
    assert handed[-1][0] == 99 and len(handed) == 11 + _batches.HAND_OVER_ITEMS
    monkeypatch.setattr(_batches, "HAND_OVER_S", 3600.0)
    record.add_value("scalar", "a", 0.25)
    record.record(100)
    record.flush()
    assert handed[-1][0] == 100
    steps = [e.step for e in read_events(tmp_path / "run").Scalars("a")]
    assert steps == list(range(1, 11 + _batches.HAND_OVER_ITEMS)) + [99, 100]
    record.close()


def test_an_error_of_the_worker_is_raised_at_flush(tmp_path, monkeypatch):
    from ms_insight.summary import _batches

    record = SummaryRecord(tmp_path / "run")

    def broken(item):
        raise RuntimeError("disk full")

    monkeypatch.setattr(_batches, "build_event", broken)
    record.add_value("scalar", "a", 1.0)
    record.record(1)
    with pytest.raises(RuntimeError, match="disk full"):
        record.flush()
    monkeypatch.undo()
    record.close()


def test_graph_of_a_traced_function_is_a_graph_def(tmp_path, read_events, lenet):
    from ms_insight.summary.network_graph import forward_graph

    net = lenet.LeNet5()
    net.set_train(True)
    graph = forward_graph(net, lenet.batches(1)[0][0])
    assert net.training and net.conv1.training  # flags restored
    with SummaryRecord(tmp_path) as record:
        record.add_value("graph", "net", graph)
    g = read_events(tmp_path).Graph()
    ops = [n.op for n in g.node]
    assert ops.count("Conv2D") == 2 and ops.count("Dense") == 3 and ops[0] == "Placeholder"
    assert any(n.op == "Parameter" and n.name == "conv1/weight" for n in g.node)
    conv = next(n for n in g.node if n.op == "Conv2D")
    assert "input_0" in conv.input and "conv1/weight" in conv.input
    assert [d.size for d in conv.attr["_output_shapes"].list.shape[0].dim] == [8, 6, 28, 28]


def test_lineage_kinds_go_to_lineage_json(tmp_path):
    from ms_insight.lineage import read_lineage

    with SummaryRecord(tmp_path) as record:
        record.add_value("train_lineage", "x", {"optimizer": "SGD"})
        record.add_value("custom_lineage_data", "x", {"note": "baseline"})
        with pytest.raises(TypeError, match="takes a dict"):
            record.add_value("eval_lineage", "x", 1.0)
    assert read_lineage(tmp_path) == {"optimizer": "SGD",
                                      "custom_lineage_data": {"note": "baseline"}}


def test_add_value_snapshots_the_value(tmp_path, read_events):
    from ms_tensor import Parameter
    from ms_tensor.tensor import array_of

    p = Parameter(Tensor(np.zeros(4, np.float32)), name="w")
    with SummaryRecord(tmp_path) as record:
        record.add_value("histogram", "w", p)
        array_of(p)[...] = 1.0  # an in-place update (as optimizers do) before record()
        record.record(1)
    assert read_events(tmp_path).Histograms("w")[0].histogram_value.max == 0.0


def test_max_file_size_stops_writing_with_one_warning(tmp_path, read_events):
    with SummaryRecord(tmp_path, max_file_size=200) as record:
        with pytest.warns(RuntimeWarning, match="max_file_size reached") as caught:
            for step in range(1, 20):
                record.add_value("scalar", "loss", float(step))
                record.record(step)
        assert len(caught) == 1
        record.flush()
        size = (tmp_path / record.event_file_name.rsplit("/", 1)[-1]).stat().st_size
    steps = [e.step for e in read_events(tmp_path).Scalars("loss")]
    assert steps == list(range(1, len(steps) + 1)) and 1 <= len(steps) < 19
    assert size <= 200 + 64  # the budget, and the file header event TensorBoard writes
    with pytest.raises(ValueError, match="max_file_size must be None or an int >= 0"):
        SummaryRecord(tmp_path / "b", max_file_size=-1)
