import io
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from ms_data.sources.arrow_files import ArrowDataset, HFArrowDataset, ParquetDataset


def rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


def table(start, n):
    images = np.arange(start * 6, (start + n) * 6, dtype=np.float32).reshape(n, 2, 3)
    return pa.table({
        "label": pa.array(np.arange(start, start + n, dtype=np.int64)),
        "name": [f"r{i}" for i in range(start, start + n)],
        "image": pa.FixedShapeTensorArray.from_numpy_ndarray(images),
    })


def test_parquet_files_keep_their_columns(tmp_path):
    pq.write_table(table(0, 3), tmp_path / "a.parquet")
    pq.write_table(table(3, 2), tmp_path / "b.parquet")
    ds = ParquetDataset([str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")], shuffle=False)
    assert ds.get_col_names() == ["label", "name", "image"] and ds.get_dataset_size() == 5
    got = rows(ds)
    assert [int(r["label"]) for r in got] == [0, 1, 2, 3, 4]
    assert str(got[4]["name"]) == "r4"
    np.testing.assert_array_equal(got[4]["image"], np.arange(24, 30).reshape(2, 3))
    picked = rows(ParquetDataset(str(tmp_path / "a.parquet"), columns_list=["name"],
                                 shuffle=False))
    assert list(picked[0]) == ["name"]


@pytest.mark.parametrize("stream", [False, True])
def test_arrow_ipc_files_and_streams(tmp_path, stream):
    path = tmp_path / "t.arrow"
    data = table(0, 4)
    with pa.OSFile(str(path), "wb") as sink:
        opener = pa.ipc.new_stream if stream else pa.ipc.new_file
        with opener(sink, data.schema) as writer:
            writer.write_table(data, max_chunksize=3)
    ds = ArrowDataset(str(path), num_samples=2, shuffle=False)
    got = rows(ds)
    assert [int(r["label"]) for r in got] == [0, 1]
    np.testing.assert_array_equal(got[1]["image"], np.arange(6, 12).reshape(2, 3))


def test_arrow_options_shards_and_shuffle(tmp_path):
    pq.write_table(table(0, 8), tmp_path / "s.parquet")
    parts = [rows(ParquetDataset(str(tmp_path / "s.parquet"), num_shards=2, shard_id=i,
                                    shuffle=False))
             for i in range(2)]
    assert sorted(int(r["label"]) for p in parts for r in p) == list(range(8))


def test_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no.parquet"):
        ParquetDataset(str(tmp_path / "no.parquet"))
    (tmp_path / "junk.parquet").write_bytes(b"junk")
    with pytest.raises(ValueError, match="junk.parquet: not a Parquet file"):
        ParquetDataset(str(tmp_path / "junk.parquet")).get_dataset_size()
    with pytest.raises(ValueError, match="junk.parquet: not an Arrow IPC"):
        ArrowDataset(str(tmp_path / "junk.parquet")).get_dataset_size()
    pq.write_table(table(0, 1), tmp_path / "a.parquet")
    pq.write_table(pa.table({"other": [1]}), tmp_path / "b.parquet")
    mixed = ParquetDataset([str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")])
    with pytest.raises(ValueError, match="b.parquet has schema"):
        mixed.get_dataset_size()
    with pytest.raises(ValueError, match=r"columns_list names \['zz'\]"):
        ParquetDataset(str(tmp_path / "a.parquet"), columns_list=["zz"]).get_col_names()


def png(value):
    buf = io.BytesIO()
    Image.fromarray(np.full((2, 2), value, np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def hf_table(labels):
    image_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    images = pa.array([{"bytes": png(v), "path": None} for v in labels], type=image_type)
    return pa.table({"image": images, "label": pa.array(labels, type=pa.int64())})


FEATURES = {"image": {"_type": "Image"},
            "label": {"names": ["a", "b", "c"], "_type": "ClassLabel"}}


def write_stream(path, data):
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, data.schema) as writer:
        writer.write_table(data)


def test_hf_save_to_disk_folder(tmp_path):
    write_stream(tmp_path / "data-00000-of-00002.arrow", hf_table([0, 1]))
    write_stream(tmp_path / "data-00001-of-00002.arrow", hf_table([2]))
    (tmp_path / "dataset_info.json").write_text(json.dumps({"features": FEATURES}))
    (tmp_path / "state.json").write_text(json.dumps({
        "_data_files": [{"filename": "data-00000-of-00002.arrow"},
                        {"filename": "data-00001-of-00002.arrow"}],
        "_split": "train",
    }))
    got = rows(HFArrowDataset(str(tmp_path), shuffle=False))
    assert [int(r["label"]) for r in got] == [0, 1, 2]
    assert bytes(got[2]["image"]) == png(2)


def test_hf_cache_build_folder_by_split(tmp_path):
    write_stream(tmp_path / "digits-train.arrow", hf_table([0, 1, 2]))
    write_stream(tmp_path / "digits-test.arrow", hf_table([1]))
    (tmp_path / "dataset_info.json").write_text(json.dumps({"features": FEATURES}))
    assert HFArrowDataset(str(tmp_path), split="train").get_dataset_size() == 3
    test = rows(HFArrowDataset(str(tmp_path), split="test"))
    assert [int(r["label"]) for r in test] == [1]
    with pytest.raises(FileNotFoundError, match="split 'validation'"):
        HFArrowDataset(str(tmp_path), split="validation")


def test_hf_errors(tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        HFArrowDataset(str(tmp_path / "none"))
    (tmp_path / "state.json").write_text(json.dumps({"_data_files": [{"filename": "x.arrow"}]}))
    with pytest.raises(FileNotFoundError, match="x.arrow"):
        HFArrowDataset(str(tmp_path))
