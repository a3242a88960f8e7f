"""Checkpoint guarantees (issue 11): readable or refused, async failures reported, killed saves
cleaned up, umask honoured, streaming load, all-or-nothing load_param_into_net."""

import os
import signal
import subprocess
import sys
import textwrap
import tracemalloc

import ml_dtypes
import numpy as np
import pytest
import safetensors.numpy

from ms_nn import Cell
from ms_nn.train import checkpoint as ckpt
from ms_nn.train.checkpoint import (
    async_ckpt_thread_status,
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
    wait_async_saves,
)
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype


class Net(Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)), name="weight")
        self.bias = Parameter(Tensor(np.zeros(2, np.float32)), name="bias")
        self.steps = Parameter(Tensor(np.array([7], np.int32)), name="steps")


def _sample(dtype, shape):
    """Values that exercise the dtype's edges (extremes, nan, signed zero, imaginary parts)."""
    n = int(np.prod(shape))
    npd = np.dtype(dtype.np)
    if npd.kind == "b":
        flat = np.arange(n) % 2 == 0
    elif npd.kind in "iu":
        info = np.iinfo(npd)
        flat = np.resize(np.array([info.min, info.max, 0, 1], dtype=npd), n)
    elif npd.kind == "c":
        flat = np.empty(n, npd)
        flat.real, flat.imag = np.resize([np.nan, -0.0, 3.5, 1e30], n), np.resize([1, np.inf], n)
    else:
        info = ml_dtypes.finfo(npd)
        flat = np.resize(np.array([info.max, info.min, np.nan, -0.0, np.inf], dtype=npd), n)
    return np.asarray(flat).astype(npd).reshape(shape)


@pytest.mark.parametrize("dtype", mstype.all_types, ids=str)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 4)], ids=str)
def test_every_dtype_round_trips_bit_for_bit(tmp_path, dtype, shape):
    value = _sample(dtype, shape)
    path = str(tmp_path / "all.ckpt")
    save_checkpoint({"p": Parameter(Tensor(value), name="p")}, path)
    loaded = load_checkpoint(path)["p"]
    assert loaded.dtype is dtype and loaded.shape == shape
    assert loaded.asnumpy().tobytes() == value.tobytes()
    assert set(safetensors.numpy.load_file(path)) == {"p"}  # still plain safetensors


def test_complex64_parameter_replaces_the_old_file_and_loads(tmp_path):
    # the reproducer: this save used to succeed and the load then failed (C64)
    path = str(tmp_path / "c.ckpt")
    save_checkpoint(Net(), path)
    z = Parameter(Tensor(np.array([1 + 2j, -3j], np.complex64)), name="z")
    save_checkpoint({"z": z}, path)
    np.testing.assert_array_equal(load_checkpoint(path)["z"].asnumpy(), z.asnumpy())


@pytest.mark.parametrize("value", [
    np.array(["a", "b"]), np.array([object()], dtype=object),
    np.zeros(2, ml_dtypes.float8_e4m3fn), np.array(["2020-01-01"], "datetime64[D]"),
])
def test_unstorable_value_is_refused_before_the_old_file_is_touched(tmp_path, value):
    path = tmp_path / "net.ckpt"
    save_checkpoint(Net(), str(path))
    before = path.read_bytes()
    with pytest.raises(TypeError, match=r"'bad' has dtype .* which a checkpoint cannot hold"):
        save_checkpoint({"w": Tensor(np.ones(2, np.float32)), "bad": value}, str(path))
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["net.ckpt"]


@pytest.mark.parametrize("name", ["__metadata__", "bad\ud800name"])
def test_a_name_the_header_cannot_hold_is_refused(tmp_path, name):
    with pytest.raises(ValueError, match="save_checkpoint: the name"):
        save_checkpoint({name: Tensor(np.ones(1, np.float32))}, str(tmp_path / "n.ckpt"))
    assert os.listdir(tmp_path) == []


def test_async_save_into_a_missing_directory_raises_at_the_call(tmp_path):
    with pytest.raises(ValueError, match=r"cannot write .*a\.ckpt: the directory .*missing"):
        save_checkpoint(Net(), str(tmp_path / "missing" / "a.ckpt"), async_save=True)


def test_failed_async_save_raises_at_the_next_save_and_at_wait(tmp_path, monkeypatch):
    def fail(path, arrays, metadata):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(ckpt._file, "write", fail)
    save_checkpoint(Net(), str(tmp_path / "a.ckpt"), async_save=True)  # returns at once
    with pytest.raises(RuntimeError, match=r"asynchronous save of .*a\.ckpt failed: disk full"):
        save_checkpoint(Net(), str(tmp_path / "b.ckpt"), async_save=True)  # b is not started
    save_checkpoint(Net(), str(tmp_path / "b.ckpt"), async_save=True)
    with pytest.raises(RuntimeError, match=r"asynchronous save of .*b\.ckpt failed"):
        wait_async_saves()
    wait_async_saves()  # reported once, then cleared
    monkeypatch.undo()
    save_checkpoint(Net(), str(tmp_path / "c.ckpt"), async_save=True)
    wait_async_saves()
    assert not async_ckpt_thread_status()
    assert list(load_checkpoint(str(tmp_path / "c.ckpt"))) == ["weight", "bias", "steps"]


def _run(script: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args],
                          capture_output=True, text=True, timeout=120)


def test_failed_async_save_is_reported_at_exit(tmp_path):
    done = _run("""
        import sys, numpy as np
        from ms_nn.train import checkpoint as ckpt
        from ms_tensor import Tensor
        def fail(path, arrays, metadata):
            raise OSError("disk full (simulated)")
        ckpt._file.write = fail
        ckpt.save_checkpoint({"w": Tensor(np.ones(2, np.float32))}, sys.argv[1], async_save=True)
        """, str(tmp_path / "a.ckpt"))
    assert "asynchronous save of" in done.stderr and "disk full (simulated)" in done.stderr


def test_killed_save_keeps_the_old_file_and_its_temp_file_is_cleaned_next_time(tmp_path):
    path = tmp_path / "net.ckpt"
    done = _run("""
        import os, signal, sys, numpy as np
        from ms_nn.train.checkpoint import save_checkpoint
        from ms_tensor import Tensor
        save_checkpoint({"w": Tensor(np.zeros(1000, np.float32))}, sys.argv[1])
        os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)  # dies mid-save
        save_checkpoint({"w": Tensor(np.ones(1000, np.float32))}, sys.argv[1])
        """, str(path))
    assert done.returncode == -signal.SIGKILL
    leftovers = [n for n in os.listdir(tmp_path) if n.endswith(".ms-ckpt-tmp")]
    assert len(leftovers) == 1
    np.testing.assert_array_equal(load_checkpoint(str(path))["w"].asnumpy(), np.zeros(1000))
    # a writer still alive, and files of users, are left alone
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        others = [f".other.ckpt.{alive.pid}-0123abcd.ms-ckpt-tmp", ".net.ckpt.tmp",
                  "notes.ms-ckpt-tmp", ".x.ckpt.123-zzzzzzzz.ms-ckpt-tmp"]
        for name in others:
            (tmp_path / name).write_bytes(b"user data")
        save_checkpoint(Net(), str(tmp_path / "other.ckpt"))
        assert sorted(os.listdir(tmp_path)) == sorted(others + ["net.ckpt", "other.ckpt"])
    finally:
        alive.kill()
        alive.wait()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_file_mode_follows_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        save_checkpoint(Net(), str(tmp_path / "m.ckpt"))
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "m.ckpt").st_mode & 0o777 == mode


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_replacing_a_file_keeps_its_mode(tmp_path):
    path = tmp_path / "m.ckpt"
    save_checkpoint(Net(), str(path))
    os.chmod(path, 0o640)
    save_checkpoint(Net(), str(path))
    assert os.stat(path).st_mode & 0o777 == 0o640


def _peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    return peak


def test_load_streams_one_tensor_at_a_time(tmp_path):
    path = str(tmp_path / "big.ckpt")
    tensors = {f"t{i}": Tensor(np.full((512, 1024), i, np.float32)) for i in range(8)}  # 2 MiB
    save_checkpoint(tensors, path)
    size = os.path.getsize(path)
    peak = _peak_bytes(lambda: load_checkpoint(path))
    # the result itself is one file's worth; reading adds about one tensor (2 MiB of 16)
    assert peak < 1.3 * size, (peak, size)
    one = _peak_bytes(lambda: load_checkpoint(path, specify_prefix="t3"))
    assert one < 2.3 * 2 ** 21, one  # filtered-out tensors are never read


def test_load_param_into_net_checks_everything_before_changing_anything():
    net = Net()
    before = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    values = {"weight": Tensor(np.ones((3, 2), np.float32)),  # fine on its own
              "bias": Tensor(np.ones(3, np.float32)),  # wrong shape
              "steps": Tensor(np.ones(1, np.float32))}  # float into an int parameter
    with pytest.raises(ValueError) as err:
        load_param_into_net(net, values)
    message = str(err.value)
    assert "2 parameters do not match the checkpoint, so none was loaded" in message
    assert "'bias' has shape (2,) in the network but (3,) in the checkpoint" in message
    assert "'steps' has dtype Int32 in the network but Float32 in the checkpoint" in message
    for p in net.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), before[p.name])


def test_load_param_into_net_converts_as_mindspore_does():
    net = Net()
    load_param_into_net(net, {"weight": Tensor(np.ones((3, 2), np.float64)),
                              "steps": Tensor(np.array([9], np.int64))})
    assert net.weight.dtype is mstype.float32 and net.steps.dtype is mstype.int32
    assert int(net.steps.asnumpy()[0]) == 9
    full = {p.name: Tensor(p.asnumpy()) for p in net.get_parameters()}
    with pytest.raises(ValueError, match="'steps' has dtype Int32 in the network but Int64"):
        load_param_into_net(net, {**full, "steps": Tensor(np.array([1], np.int64))},
                            strict_load=True)
    with pytest.raises(ValueError, match=r"'steps': Tensor: the value 1099511627776 does not"):
        load_param_into_net(net, {"weight": Tensor(np.zeros((3, 2), np.float32)),
                                  "steps": Tensor(np.array([2 ** 40], np.int64))})
    with pytest.raises(TypeError, match="'bias' is a str, not a Tensor; no parameter was"):
        load_param_into_net(net, {"weight": Tensor(np.zeros((3, 2), np.float32)), "bias": "x"})
    np.testing.assert_array_equal(net.weight.asnumpy(), np.ones((3, 2)))


def test_saves_from_several_threads_into_one_directory_never_clean_each_other_up(tmp_path):
    import threading

    errors = []

    def saver(k):
        try:
            for i in range(15):
                save_checkpoint({"w": Tensor(np.full(50_000, k, np.float32))},
                                str(tmp_path / f"t{k}_{i % 3}.ckpt"))
        except Exception as exc:  # noqa: BLE001 (collected, then asserted)
            errors.append(exc)

    threads = [threading.Thread(target=saver, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(os.listdir(tmp_path)) == sorted(f"t{k}_{i}.ckpt" for k in range(4)
                                                  for i in range(3))
    assert float(load_checkpoint(str(tmp_path / "t2_1.ckpt"))["w"].asnumpy()[0]) == 2
