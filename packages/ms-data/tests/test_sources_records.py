import numpy as np
import pyarrow.parquet as pq
import pytest

from ms_data.sources.records import FileWriter, MindDataset, read_record_metadata

SCHEMA = {
    "label": {"type": "int32"},
    "id": {"type": "int64"},
    "score": {"type": "float32"},
    "weight": {"type": "float64"},
    "name": {"type": "string"},
    "data": {"type": "bytes"},
    "mat": {"type": "float32", "shape": [2, 3]},
    "vec": {"type": "int64", "shape": [-1]},
    "var": {"type": "int32", "shape": [-1, -1]},
}


def make_rows(n):
    return [{
        "label": i, "id": 10**10 + i, "score": i / 4, "weight": i / 8, "name": f"row{i}",
        "data": bytes([65 + i]) * (i + 1), "mat": np.full((2, 3), i, np.float32),
        "vec": np.arange(i + 1), "var": np.ones((i + 1, 2 * i + 1), np.int32),
    } for i in range(n)]


def rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


def write(path, n=5, shard_num=1, file_format="parquet", batches=1):
    w = FileWriter(str(path), shard_num=shard_num, file_format=file_format)
    w.add_schema(SCHEMA, "test records")
    w.add_index(["label", "name"])
    data = make_rows(n)
    step = -(-n // batches)
    for start in range(0, n, step):
        w.write_raw_data(data[start:start + step])
    w.commit()
    return data


@pytest.mark.parametrize("file_format", ["parquet", "arrow"])
def test_records_round_trip_every_type(tmp_path, file_format):
    data = write(tmp_path / "r.rec", file_format=file_format)
    ds = MindDataset(str(tmp_path / "r.rec"), shuffle=False)
    assert ds.get_col_names() == list(SCHEMA)
    got = rows(ds)
    assert len(got) == 5
    for row, want in zip(got, data):
        assert row["label"].dtype == np.int32 and row["label"] == want["label"]
        assert row["id"].dtype == np.int64 and row["id"] == want["id"]
        assert row["score"].dtype == np.float32 and row["score"] == want["score"]
        assert row["weight"].dtype == np.float64 and row["weight"] == want["weight"]
        assert str(row["name"]) == want["name"]
        assert bytes(row["data"]) == want["data"]
        assert row["mat"].dtype == np.float32
        np.testing.assert_array_equal(row["mat"], want["mat"])
        np.testing.assert_array_equal(row["vec"], want["vec"])
        assert row["var"].shape == want["var"].shape
        np.testing.assert_array_equal(row["var"], want["var"])


def test_records_shards_find_each_other(tmp_path):
    data = write(tmp_path / "s.rec", n=7, shard_num=3, batches=2)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["s.rec0", "s.rec1", "s.rec2"]
    meta = read_record_metadata(tmp_path / "s.rec1")
    assert meta["shard_files"] == ["s.rec0", "s.rec1", "s.rec2"]
    assert meta["index_fields"] == ["label", "name"] and meta["desc"] == "test records"
    ds = MindDataset(str(tmp_path / "s.rec2"), shuffle=False)
    assert ds.get_dataset_size() == 7
    assert sorted(int(r["label"]) for r in rows(ds)) == [d["label"] for d in data]
    only = MindDataset([str(tmp_path / "s.rec0")], columns_list=["name", "label"], shuffle=False)
    got = rows(only)
    assert list(got[0]) == ["name", "label"] and 0 < len(got) < 7


def test_records_are_plain_parquet(tmp_path):
    write(tmp_path / "p.parquet", n=3)
    table = pq.read_table(tmp_path / "p.parquet")
    assert table.num_rows == 3 and table.column("name").to_pylist() == ["row0", "row1", "row2"]


def test_records_options(tmp_path):
    write(tmp_path / "o.rec", n=6)
    path = str(tmp_path / "o.rec")
    assert len(rows(MindDataset(path, num_samples=4))) == 4
    parts = [rows(MindDataset(path, num_shards=2, shard_id=i, shuffle=False)) for i in range(2)]
    assert sorted(int(r["label"]) for p in parts for r in p) == list(range(6))


def test_writer_refuses_existing_file_unless_overwrite(tmp_path):
    write(tmp_path / "e.rec", n=1)
    with pytest.raises(FileExistsError, match="e.rec"):
        FileWriter(str(tmp_path / "e.rec"))
    w = FileWriter(str(tmp_path / "e.rec"), overwrite=True)
    w.add_schema({"x": {"type": "int64"}})
    w.write_raw_data([{"x": 7}, {"x": 8}])
    w.commit()
    assert [int(r["x"]) for r in rows(MindDataset(str(tmp_path / "e.rec"), shuffle=False))] == \
        [7, 8]


def test_uncommitted_writer_leaves_no_final_file(tmp_path):
    w = FileWriter(str(tmp_path / "u.rec"))
    w.add_schema({"x": {"type": "int64"}})
    w.write_raw_data([{"x": 1}])
    assert not (tmp_path / "u.rec").exists()


@pytest.mark.parametrize("schema, match", [
    ({"x": {"type": "int8"}}, r"field 'x': type 'int8'"),
    ({"x": {"type": "string", "shape": [2]}}, r"field 'x': type 'string' takes no shape"),
    ({"x": {"typ": "int32"}}, r"field 'x'"),
    ({"x": {"type": "int32", "shape": [0]}}, r"field 'x': shape"),
    ({}, "non-empty"),
])
def test_bad_schema_names_the_field(tmp_path, schema, match):
    w = FileWriter(str(tmp_path / "b.rec"))
    with pytest.raises(ValueError, match=match):
        w.add_schema(schema)


@pytest.mark.parametrize("row, match", [
    ({"n": "s", "v": np.zeros(2, np.float32)}, r"raw_data\[0\]: field 'n': expected a int32"),
    ({"n": 2**40, "v": np.zeros(2, np.float32)}, r"field 'n'.*out of range"),
    ({"n": 1}, r"raw_data\[0\]: fields \['v'\] missing"),
    ({"n": 1, "v": np.zeros(2), "w": 3}, r"fields \['w'\] not in the schema"),
    ({"n": 1, "v": np.zeros(3, np.float32)}, r"field 'v': shape \(3,\) does not match.*\[2\]"),
    ({"n": 1, "v": np.array(["a", "b"])}, r"field 'v': <U1 values do not fit type float32"),
])
def test_bad_row_names_the_field(tmp_path, row, match):
    w = FileWriter(str(tmp_path / "w.rec"))
    w.add_schema({"n": {"type": "int32"}, "v": {"type": "float32", "shape": [2]}})
    with pytest.raises(ValueError, match=match):
        w.write_raw_data([row])


def test_bad_index_field(tmp_path):
    w = FileWriter(str(tmp_path / "i.rec"))
    w.add_schema({"n": {"type": "int32"}, "b": {"type": "bytes"}})
    with pytest.raises(ValueError, match="'zz' is not in the schema"):
        w.add_index(["zz"])
    with pytest.raises(ValueError, match="'b' must be a scalar"):
        w.add_index(["b"])


def test_reader_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.rec"):
        MindDataset(str(tmp_path / "missing.rec"))
    (tmp_path / "junk.rec").write_bytes(b"not a record file")
    with pytest.raises(ValueError, match="junk.rec.*not a Parquet or Arrow"):
        MindDataset(str(tmp_path / "junk.rec"))
    pq.write_table(__import__("pyarrow").table({"a": [1]}), tmp_path / "plain.parquet")
    with pytest.raises(ValueError, match="plain.parquet has no record metadata"):
        MindDataset(str(tmp_path / "plain.parquet"))
    write(tmp_path / "c.rec", n=2)
    with pytest.raises(ValueError, match=r"columns_list names \['nope'\]"):
        MindDataset(str(tmp_path / "c.rec"), columns_list=["nope"])
