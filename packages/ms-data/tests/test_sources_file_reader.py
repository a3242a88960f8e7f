"""FileReader: rows as MindSpore 2.10's FileReader gives them (checked there on the same
MindRecord file): Python numbers, str, exact bytes, arrays."""

import numpy as np
import pytest

import ms_data as ds
from ms_data.sources.file_reader import FileReader


@pytest.mark.parametrize("file_format", ["mindrecord", "parquet"])
def test_rows_columns_len_and_schema(tmp_path, file_format):
    path = tmp_path / "r.rec"
    w = ds.FileWriter(str(path), shard_num=2, file_format=file_format)
    schema = {"label": {"type": "int32"}, "name": {"type": "string"},
              "img": {"type": "bytes"}, "x": {"type": "float32", "shape": [2]}}
    w.add_schema(schema, "fr")
    w.write_raw_data([{"label": i, "name": f"r{i}", "img": bytes([i] * (i + 1)),
                       "x": np.array([i, -i], np.float32)} for i in range(5)])
    w.commit()
    r = FileReader(str(tmp_path / "r.rec0"))
    got = list(r.get_next())
    assert r.len() == 5 and r.schema() == schema
    assert got[0]["img"] == b"\x00" and got[3]["img"] == b"\x03" * 4  # NULs kept
    assert type(got[2]["label"]) is int and got[2]["label"] == 2
    assert got[2]["name"] == "r2" and got[2]["x"].dtype == np.float32
    assert [sorted(row) for row in FileReader(str(tmp_path / "r.rec0"),
                                              columns=["x", "label"]).get_next()][0] == \
        ["label", "x"]
    r.close()
    with pytest.raises(ValueError, match="operator"):
        FileReader(str(tmp_path / "r.rec0"), operator=object())
