"""Checkpoints: safetensors round trips, atomic writes, clear errors, strict loading."""

import os

import numpy as np
import pytest
import safetensors.numpy

from ms_nn import Cell
from ms_nn.train import checkpoint as ckpt
from ms_nn.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from ms_tensor import Parameter, Tensor, bfloat16, float16, int32


class Net(Cell):
    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.weight = Parameter(Tensor(rng.standard_normal((3, 2)).astype(np.float32)),
                                name="weight")
        self.bias = Parameter(Tensor(np.zeros(2, np.float32)), name="bias")
        self.inner = Inner()


class Inner(Cell):
    def __init__(self):
        super().__init__()
        self.scale = Parameter(Tensor(np.array([1.5, 2.5], np.float16)), name="scale")


def _values(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def test_round_trip_keeps_names_order_values_and_dtypes(tmp_path):
    net = Net(0)
    path = tmp_path / "net.ckpt"
    save_checkpoint(net, str(path))
    loaded = load_checkpoint(str(path))
    assert list(loaded) == ["weight", "bias", "inner.scale"]
    assert all(isinstance(p, Parameter) and p.name == n for n, p in loaded.items())
    assert loaded["inner.scale"].dtype == float16
    other = Net(1)
    assert load_param_into_net(other, loaded) == ([], [])
    for name, value in _values(net).items():
        np.testing.assert_array_equal(_values(other)[name], value)


def test_file_is_plain_safetensors(tmp_path):
    path = tmp_path / "net.ckpt"
    save_checkpoint(Net(), str(path))
    arrays = safetensors.numpy.load_file(str(path))
    assert set(arrays) == {"weight", "bias", "inner.scale"}


def test_suffix_is_added_and_list_of_dicts_is_accepted(tmp_path):
    save_checkpoint([{"name": "a", "data": Tensor(np.arange(3, dtype=np.int32))},
                     {"name": "b", "data": Tensor(np.ones((2,), np.float32))}],
                    str(tmp_path / "plain"))
    loaded = load_checkpoint(str(tmp_path / "plain.ckpt"))
    assert loaded["a"].dtype == int32
    np.testing.assert_array_equal(loaded["a"].asnumpy(), [0, 1, 2])


def test_list_of_parameters_is_keyed_by_their_names(tmp_path):
    w = Parameter(Tensor(np.arange(3, dtype=np.float32)), name="w")
    b = Parameter(Tensor(np.ones(2, np.float32)), name="b")
    save_checkpoint([w, b], str(tmp_path / "p.ckpt"))
    loaded = load_checkpoint(str(tmp_path / "p.ckpt"))
    assert list(loaded) == ["w", "b"]
    np.testing.assert_array_equal(loaded["w"].asnumpy(), [0, 1, 2])
    with pytest.raises(TypeError, match="list save_obj must hold Parameters or dicts"):
        save_checkpoint([w, 3.0], str(tmp_path / "q.ckpt"))


def test_append_dict_values_and_bfloat16(tmp_path):
    path = str(tmp_path / "x.ckpt")
    save_checkpoint({"w": Tensor(np.ones(2, np.float32), dtype=bfloat16),
                     "scalar": Tensor(np.array(2.5, np.float32))}, path,
                    append_dict={"epoch_num": 3, "lr": 0.5, "tag": "hi", "flag": True})
    loaded = load_checkpoint(path)
    assert loaded["w"].dtype == bfloat16
    assert loaded["scalar"].shape == ()
    assert loaded["epoch_num"].asnumpy().dtype == np.int64 and int(loaded["epoch_num"]) == 3
    assert loaded["lr"].asnumpy().dtype == np.float32
    assert loaded["tag"] == "hi"
    assert bool(loaded["flag"]) is True


def test_filters(tmp_path):
    path = str(tmp_path / "net.ckpt")
    save_checkpoint(Net(), path)
    assert list(load_checkpoint(path, filter_prefix="inner")) == ["weight", "bias"]
    assert list(load_checkpoint(path, specify_prefix=("bias", "inner"))) == ["bias",
                                                                              "inner.scale"]
    assert list(load_checkpoint(path, choice_func=lambda n: n == "weight")) == ["weight"]
    save_checkpoint(Net(), path, choice_func=lambda n: n != "bias")
    assert list(load_checkpoint(path)) == ["weight", "inner.scale"]


def test_crash_mid_save_leaves_previous_file_intact(tmp_path, monkeypatch):
    path = str(tmp_path / "net.ckpt")
    save_checkpoint(Net(0), path)
    before = open(path, "rb").read()

    def fail(fd):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(ckpt.os, "fsync", fail)
    with pytest.raises(OSError, match="simulated"):
        save_checkpoint(Net(1), path)
    monkeypatch.undo()
    assert open(path, "rb").read() == before
    assert os.listdir(tmp_path) == ["net.ckpt"]  # no temporary file left behind
    np.testing.assert_array_equal(load_checkpoint(path)["weight"].asnumpy(),
                                  Net(0).weight.asnumpy())


@pytest.mark.parametrize("content", [b"garbage" * 10, b"", None])
def test_corrupt_or_truncated_file_names_the_file(tmp_path, content):
    path = tmp_path / "bad.ckpt"
    if content is None:  # a real checkpoint cut short
        save_checkpoint(Net(), str(path))
        content = path.read_bytes()[:-5]
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"Failed to read the checkpoint file .*bad\.ckpt"):
        load_checkpoint(str(path))


def test_missing_file_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"missing\.ckpt does not exist"):
        load_checkpoint(str(tmp_path / "missing.ckpt"))


def test_load_param_into_net_reports_missing_and_unexpected():
    net = Net()
    params = {"weight": Parameter(Tensor(np.ones((3, 2), np.float32)), name="weight"),
              "extra": Parameter(Tensor(np.ones(1, np.float32)), name="extra")}
    not_loaded, unused = load_param_into_net(net, params)
    assert not_loaded == ["bias", "inner.scale"]
    assert unused == ["extra"]
    np.testing.assert_array_equal(net.weight.asnumpy(), np.ones((3, 2)))


def test_strict_load_lists_missing_and_unexpected_names():
    net = Net()
    params = {"weight": Tensor(np.ones((3, 2), np.float32)), "extra": Tensor(np.ones(1))}
    with pytest.raises(ValueError, match=r"\['bias', 'inner.scale'\].*\['extra'\]"):
        load_param_into_net(net, params, strict_load=True)
    np.testing.assert_array_equal(net.weight.asnumpy(), Net().weight.asnumpy())  # untouched


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError, match=r"'weight' has shape \(3, 2\) in the network but "
                                         r"\(4, 4\) in the checkpoint"):
        load_param_into_net(Net(), {"weight": Tensor(np.ones((4, 4), np.float32))})


def test_async_save_snapshots_values(tmp_path):
    net = Net(0)
    path = str(tmp_path / "a.ckpt")
    expected = net.weight.asnumpy().copy()
    save_checkpoint(net, path, async_save=True)
    net.weight.set_data(Tensor(np.zeros((3, 2), np.float32)))
    np.testing.assert_array_equal(load_checkpoint(path)["weight"].asnumpy(), expected)


def test_load_checkpoint_into_net(tmp_path):
    path = str(tmp_path / "n.ckpt")
    save_checkpoint(Net(0), path)
    target = Net(5)
    load_checkpoint(path, net=target)
    np.testing.assert_array_equal(target.weight.asnumpy(), Net(0).weight.asnumpy())
