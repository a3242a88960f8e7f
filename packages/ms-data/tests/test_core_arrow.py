import ml_dtypes
import numpy as np
import pyarrow as pa
import pytest

from ms_data.arrow import batch_from_numpy, column_numpy, concat_columns, rows_to_batch


def test_fixed_shape_column_round_trips_without_copy():
    x = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    b = batch_from_numpy({"x": x, "y": np.arange(4)})
    assert isinstance(b.schema.field("x").type, pa.FixedShapeTensorType)
    out = column_numpy(b, "x")
    assert out.shape == (4, 3, 2) and np.shares_memory(out, x)
    np.testing.assert_array_equal(column_numpy(b, "y"), np.arange(4))


def test_sliced_and_single_row_views_convert():
    x = np.arange(40).reshape(10, 4)[3:6]
    np.testing.assert_array_equal(column_numpy(batch_from_numpy({"x": x[None]}), "x")[0], x)


@pytest.mark.parametrize("dtype", [np.bool_, ml_dtypes.bfloat16, np.float16, np.uint8])
def test_dtypes_arrow_lacks_as_tensors_survive(dtype):
    x = (np.arange(6).reshape(3, 2) % 2).astype(dtype)
    out = column_numpy(batch_from_numpy({"x": x}), "x")
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, x)


def test_variable_shape_rows_become_object_column():
    rows = [np.ones((2, 3)), np.zeros((1, 3)), np.full((0, 3), 5.0)]
    out = column_numpy(batch_from_numpy({"v": rows}), "v")
    assert out.dtype == object and [r.shape for r in out] == [(2, 3), (1, 3), (0, 3)]
    np.testing.assert_array_equal(out[0], rows[0])


def test_strings_and_empty_columns():
    b = batch_from_numpy({"s": np.array(["a", "bb"]), "e": np.zeros((2, 0))})
    assert column_numpy(b, "s").tolist() == ["a", "bb"]
    assert column_numpy(b, "e").shape == (2, 0)
    assert column_numpy(batch_from_numpy({"x": np.zeros((0, 2, 2))}), "x").shape == (0, 2, 2)


def test_rows_to_batch_stacks_rows_and_checks_width():
    b = rows_to_batch([(np.ones(2), 1), (np.zeros(2), 2)], ["x", "y"])
    assert column_numpy(b, "x").shape == (2, 2) and column_numpy(b, "y").tolist() == [1, 2]
    with pytest.raises(ValueError, match="row 1 has 1 values but there are 2 columns"):
        rows_to_batch([(1, 2), (1,)], ["a", "b"])


def test_mismatched_lengths_and_missing_column_are_errors():
    with pytest.raises(ValueError, match="same number of rows.*a: 2, b: 3"):
        batch_from_numpy({"a": np.zeros(2), "b": np.zeros(3)})
    with pytest.raises(KeyError, match="'z' not found"):
        column_numpy(batch_from_numpy({"a": np.zeros(2)}), "z")


def test_concat_columns_falls_back_to_object_rows():
    same = concat_columns([np.zeros((2, 3)), np.ones((1, 3))])
    assert same.shape == (3, 3)
    mixed = concat_columns([np.zeros((1, 3)), np.ones((1, 2))])
    assert mixed.dtype == object and [r.shape for r in mixed] == [(3,), (2,)]
