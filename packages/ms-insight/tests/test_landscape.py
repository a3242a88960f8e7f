"""SummaryLandscape on a convex toy whose landscape is known in closed form: linear
regression with two weights and a mean squared error. Two weights make the PCA plane the
whole parameter space, so the trajectory projects exactly and every grid value can be
computed with numpy; the random landscape's directions are reproduced from the seed."""
import json

import numpy as np
import pytest

import ms_nn as nn
from ms_insight import SummaryCollector
from ms_insight.landscape import SummaryLandscape
from ms_nn.train.metrics import Loss
from ms_nn.train.model import Model
from ms_tensor import Tensor

_RNG = np.random.default_rng(0)
_X = (_RNG.standard_normal((64, 2)) * [3.0, 0.5]).astype(np.float32)  # anisotropic: a curve
_Y = (_X @ np.array([[1.5], [-2.0]], np.float32)).astype(np.float32)
_BATCHES = [(Tensor(_X[i:i + 8]), Tensor(_Y[i:i + 8])) for i in range(0, 64, 8)]
_SETTINGS = {"landscape_size": 5, "unit": "step", "num_samples": 64,
             "create_landscape": {"train": True, "result": True},
             "intervals": [[2, 3, 4, 5, 6]]}


def _net():
    net = nn.Dense(2, 1, has_bias=False)
    net.weight.set_data(Tensor(np.array([[-1.0, 1.0]], np.float32)))
    return net


def _mse(w):  # the loss over the whole data at weight row ``w``
    return float(np.mean((_X.astype(np.float64) @ np.asarray(w, np.float64).reshape(2, 1)
                          - _Y) ** 2))


def _callback():
    net = _net()
    return Model(net, nn.MSELoss()), net, _BATCHES, {"Loss": Loss()}


@pytest.fixture
def trained(tmp_path):
    net = _net()
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.02))
    weights = []  # every step's weight, recorded by Track
    from ms_nn.train.callbacks.callback import Callback

    class Track(Callback):
        def on_train_step_end(self, run_context):
            weights.append(net.weight.asnumpy().copy())

    collector = SummaryCollector(tmp_path, collect_freq=100,
                                 collect_specified_data={"collect_landscape": _SETTINGS})
    model.train(1, _BATCHES, callbacks=[collector, Track()])
    return tmp_path, weights


def test_metadata_and_checkpoints_as_mindspore_writes_them(trained):
    run, _ = trained
    meta = json.loads((run / "ckpt_dir" / "train_metadata.json").read_text())
    assert meta["epoch_group"] == {"0": [2, 3, 4, 5, 6]}
    assert sorted(meta["model_params_file_map"], key=int) == ["2", "3", "4", "5", "6"]
    assert meta["model_params_file_map"]["4"].endswith("ckpt_dir/Dense_4_step.ckpt")
    assert meta["step_per_epoch"] == 8 and meta["landscape_size"] == 5


def test_pca_landscape_is_the_known_quadratic(trained, read_events):
    run, weights = trained
    np.random.seed(0)
    lands = SummaryLandscape(run).gen_landscapes_with_multi_process(_callback, device_ids=[0])
    pca, rand = lands
    assert pca["decomposition"] == "PCA" and pca["interval"] == [2, 6]
    # the path: each checkpoint projected into the plane; its loss is the checkpoint's loss
    traj = np.array([weights[s - 1].ravel() for s in (2, 3, 4, 5, 6)], np.float64)
    np.testing.assert_allclose(pca["path"][2], [_mse(w) for w in traj], rtol=1e-4)
    assert np.allclose(pca["path"][:2, -1], 0) and pca["convergence"][2] == pca["path"][2, -1]
    # the directions, solved from the path (checkpoint - final = a v + b w) ...
    ab = pca["path"][:2].T[:-1]
    vw = np.linalg.lstsq(ab, traj[:-1] - traj[-1], rcond=None)[0]
    np.testing.assert_allclose(ab @ vw, traj[:-1] - traj[-1], atol=1e-5)
    # ... are normalized to the weight's norm, and give every grid value
    np.testing.assert_allclose(np.linalg.norm(vw, axis=1), np.linalg.norm(traj[-1]), rtol=1e-4)
    expected = [[_mse(traj[-1] + a * vw[0] + b * vw[1]) for a in pca["x"]] for b in pca["y"]]
    np.testing.assert_allclose(pca["loss"], expected, rtol=1e-4)
    # the grid spans the path with MindSpore's 20% margin
    a = pca["path"][0]
    assert np.isclose(pca["x"][0], a.min() - 0.2 * np.ptp(a))
    assert np.isclose(pca["x"][-1], a.max() + 0.2 * np.ptp(a))

    # the random landscape: MindSpore's draws (v then w, over all parameters), normalized
    np.random.seed(0)
    final = traj[-1]
    v = np.random.normal(size=2)
    w = np.random.normal(size=2)
    v, w = (d * np.linalg.norm(final) / np.linalg.norm(d) for d in (v, w))
    assert rand["decomposition"] == "Random" and rand["interval"] == [6]
    np.testing.assert_allclose(rand["x"], np.linspace(-1, 1, 5))
    expected = [[_mse(final + a * v + b * w) for a in rand["x"]] for b in rand["y"]]
    np.testing.assert_allclose(rand["loss"], expected, rtol=1e-4)
    np.testing.assert_allclose(rand["convergence"], [0, 0, _mse(final)], rtol=1e-4, atol=1e-7)

    ea = read_events(run)
    for tag, land in (("landscape_[2, 6]", pca), ("landscape_[6]", rand)):
        got = ea.Tensors(f"{tag}/loss")[0]
        from tensorboard.util.tensor_util import make_ndarray

        np.testing.assert_allclose(make_ndarray(got.tensor_proto), land["loss"], rtol=1e-6)
        assert ea.Images(f"{tag}/image")[0].width == 5
    assert "landscape_[2, 6]/path" in ea.Tags()["tensors"]


def test_overrides_are_checked_and_written_back(trained):
    run, _ = trained
    landscape = SummaryLandscape(run)
    with pytest.raises(ValueError, match="landscape_size must be in"):
        landscape.gen_landscapes_with_multi_process(_callback, {"landscape_size": 300})
    with pytest.raises(ValueError, match=r"no checkpoint was saved at steps \[7\]"):
        landscape.gen_landscapes_with_multi_process(_callback, {"intervals": [[5, 6, 7]]})
    lands = landscape.gen_landscapes_with_multi_process(
        _callback, {"landscape_size": 3, "intervals": [[3, 4, 5]],
                    "create_landscape": {"train": True, "result": False}})
    assert [land["interval"] for land in lands] == [[3, 5]] and lands[0]["loss"].shape == (3, 3)
    meta = json.loads((run / "ckpt_dir" / "train_metadata.json").read_text())
    assert meta["landscape_size"] == 3 and meta["epoch_group"] == {"0": [3, 4, 5]}


def test_bad_input_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="train_metadata.json does not exist"):
        SummaryLandscape(tmp_path).gen_landscapes_with_multi_process(_callback)
    with pytest.raises(ValueError, match="device_ids must be in"):
        SummaryLandscape(tmp_path).gen_landscapes_with_multi_process(_callback,
                                                                     device_ids=[8])
    with pytest.raises(ValueError, match="at least three"):
        SummaryCollector(tmp_path, collect_specified_data={
            "collect_landscape": {"intervals": [[1, 2]]}})
    with pytest.raises(ValueError, match="unknown collect_landscape keys"):
        SummaryCollector(tmp_path, collect_specified_data={"collect_landscape": {"size": 3}})


def test_epoch_unit_saves_at_epoch_ends(tmp_path):
    net = _net()
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.02))
    settings = dict(_SETTINGS, unit="epoch", intervals=[[1, 2, 3]])
    model.train(3, _BATCHES[:2], callbacks=[SummaryCollector(
        tmp_path, collect_specified_data={"collect_landscape": settings})])
    meta = json.loads((tmp_path / "ckpt_dir" / "train_metadata.json").read_text())
    assert sorted(meta["model_params_file_map"]) == ["1", "2", "3"]
    assert meta["model_params_file_map"]["3"].endswith("Dense_3_epoch.ckpt")


def test_collected_by_default_as_in_mindspore(tmp_path):
    net = _net()
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.02))
    model.train(1, _BATCHES[:3], callbacks=[SummaryCollector(tmp_path / "on")])
    meta = json.loads((tmp_path / "on" / "ckpt_dir" / "train_metadata.json").read_text())
    assert meta["epoch_group"] == {"0": list(range(1, 10)), "1": list(range(10, 20))}
    assert sorted(meta["model_params_file_map"]) == ["1", "2", "3"]
    assert meta["landscape_size"] == 40 and meta["num_samples"] == 2048
    model.train(1, _BATCHES[:3], callbacks=[SummaryCollector(
        tmp_path / "off", collect_specified_data={"collect_landscape": None})])
    assert not (tmp_path / "off" / "ckpt_dir").exists()


def test_a_model_with_an_optimizer_is_not_trained_by_the_grid(trained):
    run, _ = trained
    settings = {"landscape_size": 3, "create_landscape": {"train": True, "result": False}}

    def with_optimizer():
        net = _net()
        model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.5))
        return model, net, _BATCHES, {"Loss": Loss()}

    landscape = SummaryLandscape(run)
    plain = landscape.gen_landscapes_with_multi_process(_callback, settings)[0]
    again = landscape.gen_landscapes_with_multi_process(with_optimizer, settings)[0]
    np.testing.assert_allclose(again["loss"], plain["loss"], rtol=1e-6)


def test_graph_mode_equals_pynative(tmp_path):
    from ms_tensor import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context

    previous = get_context("mode")
    got = {}
    try:
        for mode in (PYNATIVE_MODE, GRAPH_MODE):
            set_context(mode=mode)
            net = _net()
            model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.02))
            settings = dict(_SETTINGS, landscape_size=3)
            model.train(1, _BATCHES, callbacks=[SummaryCollector(
                tmp_path / str(mode), collect_specified_data={"collect_landscape": settings})])
            np.random.seed(0)
            got[mode] = SummaryLandscape(tmp_path / str(mode)).gen_landscapes_with_multi_process(
                _callback)
    finally:
        set_context(mode=previous)
    for a, b in zip(got[PYNATIVE_MODE], got[GRAPH_MODE]):
        np.testing.assert_array_equal(a["loss"], b["loss"])
        np.testing.assert_array_equal(a["x"], b["x"])
