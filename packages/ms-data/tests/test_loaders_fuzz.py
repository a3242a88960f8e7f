"""Hostile files end in a DatasetError naming the file: the fuzzers' findings and issue 11's
corrupt gzip as hand-made cases, and a few seconds of each atheris target
(``fuzz_loaders.py``)."""

import gzip
import importlib.util
import io
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import ms_data as ds
from ms_data import DatasetError
from ms_data.sources.image_folder import decode_image
from ms_data.sources.mnist import read_idx
from ms_data.sources.records import META_KEY, FileWriter

IMAGES, LABELS = "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"


def _idx(magic, shape, data=b""):
    return struct.pack(f">I{len(shape)}I", magic, *shape) + data


def _mnist(tmp_path, images: bytes, name=IMAGES + ".gz"):
    (tmp_path / name).write_bytes(images)
    (tmp_path / LABELS).write_bytes(_idx(2049, (2,), b"\1\2"))
    return list(ds.MnistDataset(str(tmp_path), usage="test", shuffle=False))


def test_corrupt_gzip_is_a_dataset_error_naming_the_file(tmp_path):
    # Issue 11: this was a bare gzip.BadGzipFile.
    good = gzip.compress(_idx(2051, (2, 28, 28), bytes(2 * 784)))
    bad = good[:10] + bytes(b ^ 0x55 for b in good[10:30]) + good[30:]
    with pytest.raises(DatasetError, match=rf"{IMAGES}.gz: corrupt gzip file"):
        _mnist(tmp_path, bad)


def test_truncated_gzip_is_a_dataset_error_naming_the_file(tmp_path):
    good = gzip.compress(_idx(2051, (2, 28, 28), bytes(2 * 784)))
    with pytest.raises(DatasetError, match=rf"{IMAGES}.gz: corrupt gzip file.*EOFError"):
        _mnist(tmp_path, good[:len(good) // 2])


def test_idx_header_claiming_terabytes_is_an_error_without_allocating_them(tmp_path):
    path = tmp_path / IMAGES
    path.write_bytes(_idx(2051, (2 ** 32 - 1, 2 ** 16, 2 ** 16), bytes(100)))
    with pytest.raises(DatasetError, match=rf"{IMAGES}: truncated"):
        read_idx(str(path), 2051)


def test_cifar_label_out_of_range_is_a_dataset_error(tmp_path):
    (tmp_path / "test_batch.bin").write_bytes(bytes([12]) + bytes(3072))
    with pytest.raises(DatasetError, match=r"test_batch.bin: record 0 has label 12"):
        list(ds.Cifar10Dataset(str(tmp_path), usage="test"))


def _records(path, fmt="arrow"):
    w = FileWriter(str(path), file_format=fmt)
    w.add_schema({"x": {"type": "int32"}, "v": {"type": "float32", "shape": [-1, -1]}}, "d")
    w.write_raw_data([{"x": 1, "v": np.ones((2, 3), np.float32)}])
    w.commit()


def _rewrite(path, meta=None, table=None):
    """The record file at ``path`` with its metadata or its table replaced."""
    with pa.memory_map(str(path)) as source:
        old = pa.ipc.open_file(source).read_all()
    table = old if table is None else table
    meta = json.loads(old.schema.metadata[META_KEY]) if meta is None else meta
    table = table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()})
    with pa.ipc.new_file(str(path), table.schema) as w:
        w.write_table(table)


def test_record_shard_names_cannot_leave_their_folder(tmp_path):
    path = tmp_path / "r.arrow"
    _records(path)
    meta = json.loads(pa.ipc.open_file(str(path)).schema.metadata[META_KEY])
    _rewrite(path, meta={**meta, "shard_files": ["../../etc/passwd"]})
    with pytest.raises(DatasetError, match=r"r.arrow has corrupt record metadata: shard_files"):
        ds.MindDataset(str(path))


@pytest.mark.parametrize("meta", [b"{", b"[]", b'{"schema": 1, "shard_files": ["r"]}'])
def test_corrupt_record_metadata_is_a_dataset_error(tmp_path, meta):
    path = tmp_path / "r.arrow"
    table = pa.table({"x": pa.array([1], pa.int32())}).replace_schema_metadata({META_KEY: meta})
    with pa.ipc.new_file(str(path), table.schema) as w:
        w.write_table(table)
    with pytest.raises(DatasetError, match=r"r.arrow has corrupt record metadata"):
        ds.MindDataset(str(path))


def test_record_column_of_the_wrong_type_is_a_dataset_error(tmp_path):
    path = tmp_path / "r.arrow"
    _records(path)
    table = pa.ipc.open_file(str(path)).read_all()
    _rewrite(path, table=table.set_column(0, "x", pa.array(["a"])))
    with pytest.raises(DatasetError, match=r"r.arrow: column 'x' is string, its record schema "
                                           r"needs int32"):
        ds.MindDataset(str(path))


def test_record_row_shape_that_does_not_fit_its_values_is_a_dataset_error(tmp_path):
    path = tmp_path / "r.arrow"
    _records(path)
    table = pa.ipc.open_file(str(path)).read_all()
    shapes = pa.array([[4, 4]], pa.list_(pa.int64()))
    column = table.schema.get_field_index("v.shape")
    _rewrite(path, table=table.set_column(column, "v.shape", shapes.cast(table.field(column).type)))
    with pytest.raises(DatasetError, match=r"field 'v' of .*r.arrow does not fit its schema"):
        list(ds.MindDataset(str(path)))


def test_arrow_file_with_offsets_past_its_buffers_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "t.arrow"
    table = pa.table({"s": pa.array(["abc", "de"])})
    sink = io.BytesIO()
    with pa.ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    data = bytearray(sink.getvalue())
    offsets = struct.pack("<iii", 0, 3, 5)
    at = data.find(offsets)
    data[at + 8:at + 12] = struct.pack("<i", 1 << 20)  # the last string ends 1 MB past the data
    path.write_bytes(bytes(data))
    with pytest.raises(DatasetError, match=r"t.arrow: not an Arrow IPC file or stream"):
        list(ds.ArrowDataset(str(path)))


def test_truncated_png_is_a_dataset_error_naming_the_file(tmp_path):
    from PIL import Image

    buf = io.BytesIO()
    noise = np.random.default_rng(0).integers(0, 256, (32, 32, 3), dtype=np.uint8)
    Image.fromarray(noise).save(buf, format="PNG")
    cut = buf.getvalue()[:1000]
    with pytest.raises(DatasetError, match=r"cannot decode /x/a.png as an image"):
        decode_image(cut, "/x/a.png")
    with pytest.raises(DatasetError, match=r"cannot decode Decode's input of 1000 bytes"):
        ds.vision.Decode()(np.frombuffer(cut, np.uint8))


REGRESSIONS = sorted((p.parent.name, p) for p in
                     Path(__file__).with_name("fuzz_regressions").glob("*/*"))


@pytest.mark.parametrize("target, case", REGRESSIONS, ids=[f"{t}/{p.name}" for t, p in REGRESSIONS])
def test_fuzzer_findings_stay_fixed(tmp_path, target, case):
    """Every input a fuzzer once failed on, through the same checks (atheris not needed)."""
    spec = importlib.util.spec_from_file_location("fuzz_loaders",
                                                  Path(__file__).with_name("fuzz_loaders.py"))
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    _, one_input = harness.TARGETS[target](str(tmp_path))
    one_input(case.read_bytes())


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                    reason="atheris is not installed (pip install atheris)")
@pytest.mark.parametrize("target", ["mnist", "cifar", "records", "image"])
def test_fuzzed_files_end_in_clean_errors(tmp_path, target):
    script = Path(__file__).with_name("fuzz_loaders.py")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, str(script), target, "-max_total_time=2",
                           "-timeout=10", "-rss_limit_mb=4096",
                           f"-artifact_prefix={tmp_path}{os.sep}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "Done" in done.stderr
