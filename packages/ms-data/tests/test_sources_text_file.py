"""TextFileDataset: lines, order, shards and samples as MindSpore 2.10 gives them (each
expected list below was printed by MindSpore 2.10 on the same files)."""

import numpy as np
import pytest

import ms_data as ds
from ms_data.sources.text_file import reader_order


@pytest.fixture
def files(tmp_path):
    t1, t2, t3 = tmp_path / "t1.txt", tmp_path / "t2.txt", tmp_path / "t3.txt"
    t1.write_bytes("hello world\n\nsecond line\r\n  spaced  \nünïcode ✓\nlast".encode())
    t2.write_text("b1\nb2\nb3\n")
    t3.write_text("c1\nc2\n")
    return [str(t1), str(t2), str(t3)]


def lines(dataset):
    return [str(r[0]) for r in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)]


H, S, SP, U, L = "hello world", "second line\r", "  spaced  ", "ünïcode ✓", "last"


def test_lines_column_and_two_reader_order(files):
    d = ds.TextFileDataset(files[:2], shuffle=False, num_parallel_workers=2)
    assert d.get_col_names() == ["text"] and d.get_dataset_size() == 8
    row = next(d.create_tuple_iterator(output_numpy=True))[0]
    assert row.dtype.kind == "U" and row.shape == ()
    assert lines(d) == [H, "b1", S, "b2", SP, "b3", U, L]


@pytest.mark.parametrize("kw, want", [
    ({"num_parallel_workers": 1}, [H, S, SP, U, L, "b1", "b2", "b3", "c1", "c2"]),
    ({"num_parallel_workers": 2}, [H, "b1", S, "b2", SP, "b3", U, L, "c1", "c2"]),
    ({"num_parallel_workers": 2, "num_samples": 3}, [H, "b1", S]),
    ({"num_parallel_workers": 2, "num_shards": 2, "shard_id": 1}, ["b1", "c1", "b2", "c2", "b3"]),
    ({"num_parallel_workers": 1, "num_shards": 4, "shard_id": 3}, ["c2", H, S]),
])
def test_order_samples_and_shards_as_mindspore(files, kw, want):
    assert lines(ds.TextFileDataset(files, shuffle=False, **kw)) == want


def test_shuffle_modes_keep_every_line(files):
    for shuffle in (True, ds.Shuffle.GLOBAL, ds.Shuffle.FILES, ds.Shuffle.INFILE):
        assert sorted(lines(ds.TextFileDataset(files, shuffle=shuffle))) == \
            sorted([H, S, SP, U, L, "b1", "b2", "b3", "c1", "c2"])
    assert lines(ds.TextFileDataset(files[1], shuffle=ds.Shuffle.FALSE)) == ["b1", "b2", "b3"]
    b = ds.TextFileDataset(files[1], shuffle=False).batch(2)
    got = [r[0] for r in b.create_tuple_iterator(output_numpy=True)]
    assert [list(x) for x in got] == [["b1", "b2"], ["b3"]] and got[0].dtype.kind == "U"


def test_errors(files, tmp_path):
    with pytest.raises(ValueError, match="did not match any files.*missing.txt"):
        ds.TextFileDataset([files[0], str(tmp_path / "missing.txt")])
    with pytest.raises(ValueError, match="empty"):
        ds.TextFileDataset([])
    with pytest.raises(TypeError, match="shuffle"):
        ds.TextFileDataset(files, shuffle="yes")
    with pytest.raises(RuntimeError, match="shard_id"):
        ds.TextFileDataset(files, num_shards=2)


def test_reader_order_round_robin():
    assert list(reader_order([3, 2, 1], 2)) == [0, 3, 1, 4, 2, 5]
    assert list(reader_order([2, 2], 8)) == [0, 2, 1, 3]
    assert list(reader_order([4], 2)) == [0, 1, 2, 3]
    assert np.array_equal(reader_order([2, 1], 1), [0, 1, 2])
