"""One dtype per column, and clean errors for rows a column cannot hold (issue 11, items 7
and 10)."""

import numpy as np
import pytest

import ms_data as ds
from ms_data import DatasetError


def _rows(d):
    return [r[0] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def _one_int_row_among_floats():
    for i in range(300):
        yield (np.array([i], np.int64 if i == 70 else np.float32),)


def test_one_int64_row_among_float32_rows_is_an_error_naming_column_rows_and_dtypes():
    # It used to make rows 64..127 float64 and the others float32.
    with pytest.raises(DatasetError, match=r"column 'x' has dtype int64 in row 70 but float32 "
                                           r"in row 64.*column_types"):
        _rows(ds.GeneratorDataset(_one_int_row_among_floats, ["x"]))


def test_a_first_row_of_another_dtype_is_reported_against_the_next_row():
    def gen():
        yield (np.int64(1),)
        yield (np.float32(2),)
    with pytest.raises(DatasetError, match=r"'x' has dtype float32 in row 1 but int64 in row 0"):
        _rows(ds.GeneratorDataset(gen, ["x"]))


@pytest.mark.parametrize("workers", [1, 2])
def test_dtype_change_between_chunks_of_a_random_access_source_names_the_row(workers):
    class Source:
        def __len__(self):
            return 300

        def __getitem__(self, i):
            return (np.array([i], np.int64 if i == 200 else np.float32),)
    d = ds.GeneratorDataset(Source(), ["x"], shuffle=False, num_parallel_workers=workers)
    with pytest.raises(DatasetError, match=r"'x' has dtype int64 in row 200 but float32"):
        _rows(d)


def test_column_types_converts_mixed_rows_to_one_dtype():
    rows = _rows(ds.GeneratorDataset(_one_int_row_among_floats, ["x"],
                                     column_types=[np.float32]))
    assert len(rows) == 300 and {r.dtype for r in rows} == {np.dtype(np.float32)}


def test_python_strings_of_different_lengths_are_one_column():
    rows = _rows(ds.GeneratorDataset(lambda: iter([("a",), ("abc",)]), ["s"]))
    assert [str(r) for r in rows] == ["a", "abc"]


@pytest.mark.parametrize("row, kinds", [
    (np.array([object(), 1], dtype=object), "int, object"),
    (np.array(["a", 1], dtype=object), "int, str"),
])
def test_object_array_rows_are_a_clean_error_naming_the_column(row, kinds):
    # They used to end in a RecursionError.
    with pytest.raises(DatasetError, match=rf"column 'x'.*object array.*holding {kinds}"):
        _rows(ds.GeneratorDataset(lambda: iter([(row,)] * 3), ["x"]))


def test_object_arrays_of_one_kind_become_typed_columns():
    rows = _rows(ds.GeneratorDataset(lambda: iter([(np.array([1, 2], dtype=object),)] * 2),
                                     ["x"]))
    assert rows[0].dtype == np.int64 and rows[0].tolist() == [1, 2]


def test_two_dimensional_object_column_is_a_clean_error():
    data = np.empty((2, 2), dtype=object)
    data[:] = [[{"a": 1}, 2], [3, 4]]
    with pytest.raises(DatasetError, match=r"column 'x'.*object array"):
        _rows(ds.NumpySlicesDataset({"x": data}, shuffle=False))


def test_ragged_nested_lists_are_a_clean_error_naming_the_row():
    with pytest.raises(DatasetError, match=r"column 'x': row 0 is a list that is not a regular"):
        _rows(ds.GeneratorDataset(lambda: iter([([[1, 2], [3]],)] * 2), ["x"]))
