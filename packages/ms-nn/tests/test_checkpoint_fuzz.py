"""Hostile checkpoint files end in a ValueError naming the file: hand-made cases of every check
the loader makes, and a few seconds of the atheris fuzzer (``fuzz_checkpoint.py``)."""

import importlib.util
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_tensor import Tensor


def _file(header, body: bytes = b"", length: int | None = None) -> bytes:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text) if length is None else length) + text + body


def _t(dtype="F32", shape=(1,), offsets=(0, 4)):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}


HOSTILE = {
    "empty": b"",
    "short length": b"\x01\x00",
    "length beyond the file": _file({}, length=2 ** 63),
    "length just past the file": _file({"a": _t()}, b"\0" * 4, length=60),
    "header not utf-8": _file(b"\xff\xfe{}"),
    "header not json": _file(b"{'a': 1}"),
    "header a list": _file([]),
    "header a number": _file(b"5"),
    "deeply nested header": _file(b"[" * 100_000 + b"]" * 100_000),
    "deeply nested entry": _file(b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    "huge integer": _file(b'{"a": {"dtype": "F32", "shape": [' + b"9" * 5000 + b'], '
                          b'"data_offsets": [0, 4]}}', b"\0" * 4),
    "duplicate names": _file(b'{"a": ' + json.dumps(_t()).encode() + b', "a": '
                             + json.dumps(_t(offsets=(4, 8))).encode() + b"}", b"\0" * 8),
    "entry not an object": _file({"a": 3}),
    "entry missing keys": _file({"a": {"dtype": "F32"}}),
    "entry with extra keys": _file({"a": {**_t(), "x": 1}}, b"\0" * 4),
    "dtype a list": _file({"a": _t(dtype=["F32"])}, b"\0" * 4),
    "dtype unknown": _file({"a": _t(dtype="F8_E4M3")}, b"\0" * 4),
    "shape negative": _file({"a": _t(shape=(-1,))}, b"\0" * 4),
    "shape float": _file({"a": _t(shape=(1.0,))}, b"\0" * 4),
    "shape bool": _file({"a": _t(shape=(True,))}, b"\0" * 4),
    "shape a string": _file({"a": {**_t(), "shape": "1"}}, b"\0" * 4),
    "shape too many dims": _file({"a": _t(shape=(1,) * 40)}, b"\0" * 4),
    "shape huge but empty": _file({"a": _t(shape=(0, 2 ** 61), offsets=(0, 0))}),
    "shape lies about size": _file({"a": _t(shape=(2 ** 20, 2 ** 20))}, b"\0" * 4),
    "shape overflows int64": _file({"a": _t(shape=(2 ** 40, 2 ** 40), offsets=(0, 2 ** 62))}),
    "offsets reversed": _file({"a": _t(offsets=(4, 0))}, b"\0" * 4),
    "offsets with a gap": _file({"a": _t(offsets=(4, 8))}, b"\0" * 8),
    "offsets overlap": _file({"a": _t(), "b": _t()}, b"\0" * 4),
    "offsets past the end": _file({"a": _t(shape=(2,), offsets=(0, 8))}, b"\0" * 4),
    "trailing bytes": _file({"a": _t()}, b"\0" * 5),
    "metadata a list": _file({"__metadata__": [], "a": _t()}, b"\0" * 4),
    "metadata values not str": _file({"__metadata__": {"order": 1}, "a": _t()}, b"\0" * 4),
    "order not json": _file({"__metadata__": {"order": "[a"}, "a": _t()}, b"\0" * 4),
    "order not a list of str": _file({"__metadata__": {"order": "[1]"}, "a": _t()}, b"\0" * 4),
    "order deeply nested": _file({"__metadata__": {"order": "[" * 100_000}, "a": _t()},
                                 b"\0" * 4),
    "strings not a dict": _file({"__metadata__": {"strings": "[]"}, "a": _t()}, b"\0" * 4),
    "strings values not str": _file({"__metadata__": {"strings": '{"s": 1}'}}),
    "complex128 not float64": _file({"__metadata__": {"complex128": '["a"]'}, "a": _t()},
                                    b"\0" * 4),
    "complex128 without the pair axis": _file(
        {"__metadata__": {"complex128": '["a"]'}, "a": _t("F64", (3,), (0, 24))}, b"\0" * 24),
    "complex128 0-d": _file({"__metadata__": {"complex128": '["a"]'}, "a": _t("F64", (), (0, 8))},
                            b"\0" * 8),
}


@pytest.mark.parametrize("content", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_file_is_a_clear_error_naming_the_file(tmp_path, content):
    path = tmp_path / "hostile.ckpt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"Failed to read the checkpoint file .*hostile\.ckpt"):
        load_checkpoint(str(path))


def test_a_directory_is_a_clear_error(tmp_path):
    (tmp_path / "dir.ckpt").mkdir()
    with pytest.raises(ValueError, match=r"dir\.ckpt: it is a directory"):
        load_checkpoint(str(tmp_path / "dir.ckpt"))


def test_foreign_safetensors_without_our_metadata_loads(tmp_path):
    import safetensors.numpy

    path = str(tmp_path / "foreign.safetensors")
    safetensors.numpy.save_file({"b": np.ones(2, np.float32), "a": np.zeros(3, np.int8)}, path)
    loaded = load_checkpoint(path)
    assert sorted(loaded) == ["a", "b"] and loaded["a"].asnumpy().dtype == np.int8


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                    reason="atheris is not installed (pip install atheris)")
def test_fuzzed_files_end_in_clean_errors(tmp_path):
    target = Path(__file__).with_name("fuzz_checkpoint.py")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, str(target), "-max_total_time=4", "-timeout=10",
                           "-rss_limit_mb=4096", f"-artifact_prefix={tmp_path}{os.sep}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "Done" in done.stderr


def test_seeded_checkpoints_load(tmp_path):
    """The fuzzer's seeds are real checkpoints (a broken seed would make the run useless)."""
    save_checkpoint({"w": Tensor(np.ones(2, np.float32))}, str(tmp_path / "s.ckpt"))
    assert list(load_checkpoint(str(tmp_path / "s.ckpt"))) == ["w"]
