import numpy as np
import pytest

from ms_data.sources.csv import CSVDataset, read_csv_file


def rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_header_names_columns_and_values_are_strings(tmp_path):
    (tmp_path / "a.csv").write_text("a,b,c\n1,2.5,x\n3,4.5,y\n")
    ds = CSVDataset(str(tmp_path / "a.csv"), shuffle=False)
    assert ds.get_col_names() == ["a", "b", "c"] and ds.get_dataset_size() == 2
    got = rows(ds)
    assert [str(r["b"]) for r in got] == ["2.5", "4.5"]
    assert got[0]["a"].dtype.kind == "U"


def test_column_names_make_every_line_data(tmp_path):
    (tmp_path / "a.csv").write_text("p,q\n1,2\n")
    got = rows(CSVDataset([str(tmp_path / "a.csv")], column_names=["x", "y"], shuffle=False))
    assert [(str(r["x"]), str(r["y"])) for r in got] == [("p", "q"), ("1", "2")]


def test_column_defaults_type_columns_and_fill_empty_numbers(tmp_path):
    (tmp_path / "b.csv").write_text("1,,x\n3,4.5,\n")
    ds = CSVDataset([str(tmp_path / "b.csv")], column_defaults=[0, 9.5, "zz"],
                    column_names=["p", "q", "r"], shuffle=False)
    got = rows(ds)
    assert got[0]["p"].dtype == np.int32 and got[0]["q"].dtype == np.float32
    assert [float(r["q"]) for r in got] == [9.5, 4.5]
    # MindSpore keeps an empty string field as "", not the default.
    assert [str(r["r"]) for r in got] == ["x", ""]


def test_several_files_in_order_with_matching_headers(tmp_path):
    (tmp_path / "1.csv").write_text("a;b\n1;2\n")
    (tmp_path / "2.csv").write_text("a;b\n3;4\n5;6\n")
    ds = CSVDataset([str(tmp_path / "1.csv"), str(tmp_path / "2.csv")], field_delim=";",
                    column_defaults=[0, 0], shuffle=False)
    assert [int(r["a"]) for r in rows(ds)] == [1, 3, 5]
    (tmp_path / "3.csv").write_text("a;c\n1;2\n")
    bad = CSVDataset([str(tmp_path / "1.csv"), str(tmp_path / "3.csv")], field_delim=";")
    with pytest.raises(ValueError, match="3.csv has columns"):
        bad.get_dataset_size()


def test_options(tmp_path):
    (tmp_path / "n.csv").write_text("v\n" + "".join(f"{i}\n" for i in range(10)))
    path = str(tmp_path / "n.csv")
    assert len(rows(CSVDataset(path, num_samples=3))) == 3
    shuffled = [int(r["v"]) for r in rows(CSVDataset(path, column_defaults=[0]))]
    assert sorted(shuffled) == list(range(10))
    parts = [rows(CSVDataset(path, column_defaults=[0], num_shards=2, shard_id=i,
                                shuffle=False))
             for i in range(2)]
    assert sorted(int(r["v"]) for p in parts for r in p) == list(range(10))


def test_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="none.csv"):
        CSVDataset(str(tmp_path / "none.csv"))
    (tmp_path / "t.csv").write_text("1,a\n")
    with pytest.raises(ValueError, match=r"cannot parse .*t.csv.*'a'"):
        read_csv_file(str(tmp_path / "t.csv"), column_defaults=[0, 0.0], column_names=["x", "y"])
    (tmp_path / "w.csv").write_text("a,b\n1,2,3\n")
    with pytest.raises(ValueError, match=r"cannot parse .*w.csv.*Expected 2 columns"):
        read_csv_file(str(tmp_path / "w.csv"))
    with pytest.raises(ValueError, match="column_defaults has 1 entries"):
        read_csv_file(str(tmp_path / "w.csv"), column_defaults=[0])
    with pytest.raises(TypeError, match="column_defaults entries"):
        read_csv_file(str(tmp_path / "w.csv"), column_defaults=[0, [1]])
