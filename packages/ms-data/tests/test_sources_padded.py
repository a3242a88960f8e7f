"""PaddedDataset: rows, dtypes and errors as MindSpore 2.10 (checked there), and its use:
concatenated to a dataset to even out shards."""

import numpy as np
import pytest

import ms_data as ds


def test_rows_and_dtypes():
    d = ds.PaddedDataset([{"image": np.zeros(2, np.uint8), "label": np.array(3, np.int32)},
                          {"image": np.ones(3, np.uint8), "label": np.array(4, np.int32)}])
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 2
    assert d.output_types() == [np.uint8, np.int32]
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert got[1][0].tolist() == [1, 1, 1] and int(got[1][1]) == 4
    plain = ds.PaddedDataset([{"b": 1, "a": [1.5, 2.0]}])
    assert plain.get_col_names() == ["b", "a"]
    assert plain.output_types() == [np.int64, np.float64]
    text = next(ds.PaddedDataset([{"t": "hi"}]).create_tuple_iterator(output_numpy=True))[0]
    assert str(text) == "hi"


def test_concat_evens_out_shards():
    data = ds.NumpySlicesDataset({"x": np.arange(5, dtype=np.int64)}, shuffle=False)
    padded = data + ds.PaddedDataset([{"x": np.int64(-1)}])
    assert padded.get_dataset_size() == 6
    assert [int(r[0]) for r in padded.create_tuple_iterator(output_numpy=True)] == \
        [0, 1, 2, 3, 4, -1]


def test_errors():
    with pytest.raises(ValueError, match="empty"):
        ds.PaddedDataset([])
    with pytest.raises(TypeError, match="list of dicts"):
        ds.PaddedDataset({"a": 1})
    with pytest.raises(TypeError, match=r"\[0\] must be a dict"):
        ds.PaddedDataset([1])
    with pytest.raises(ValueError, match=r"\[1\] has keys \['b'\]"):
        ds.PaddedDataset([{"a": 1}, {"b": 2}])
