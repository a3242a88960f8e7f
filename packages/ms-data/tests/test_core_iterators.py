import multiprocessing
import threading

import numpy as np
import pytest

import ms_data as ds
from ms_data import config
from ms_tensor import Tensor


@pytest.fixture(autouse=True)
def _config():
    old = (config._seed, config._seed_set, config._prefetch_size)
    ds.config.set_seed(3)
    yield
    config._seed, config._seed_set, config._prefetch_size = old


def data(n=5):
    return ds.NumpySlicesDataset({"a": np.arange(n), "b": np.arange(n) * 0.5}, shuffle=False)


def test_plain_iteration_gives_lists_of_tensors():
    row = next(iter(data()))
    assert isinstance(row, list) and all(isinstance(v, Tensor) for v in row)
    assert row[0].shape == () and str(row[0].dtype) == "Int64"
    assert str(row[1].dtype) == "Float64"


def test_dict_and_tuple_iterators():
    d = data()
    first = next(d.create_dict_iterator())
    assert list(first) == ["a", "b"] and isinstance(first["a"], Tensor)
    np_rows = list(d.create_tuple_iterator(columns=["b", "a"], num_epochs=1, output_numpy=True))
    assert [r[1].item() for r in np_rows] == [0, 1, 2, 3, 4] and np_rows[1][0] == 0.5
    with pytest.raises(ValueError, match="columns"):
        d.create_tuple_iterator(columns=["zz"])


def test_tensors_are_writable_copies():
    t = next(iter(data().batch(2)))[0]
    arr = t.asnumpy()
    arr[0] = 42  # does not raise: a copy, not the Arrow buffer
    assert next(iter(data().batch(2)))[0].asnumpy()[0] == 0


def test_epochs_then_mindspore_error_after_the_last():
    it = data(3).create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[0]) for r in it] == [0, 1, 2]
    assert [int(r[0]) for r in it] == [0, 1, 2]
    with pytest.raises(RuntimeError, match="beyond the specified number of epochs"):
        next(it)


def test_unlimited_epochs_and_shuffled_epochs_differ():
    d = ds.NumpySlicesDataset(np.arange(30))  # shuffle=None: a random sampler
    it = d.create_tuple_iterator(output_numpy=True)  # num_epochs=-1
    epochs = [[int(r[0]) for r in it] for _ in range(3)]
    assert all(sorted(e) == list(range(30)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]
    again = d.create_tuple_iterator(output_numpy=True)
    assert [int(r[0]) for r in again] == epochs[0]  # same seed -> same epoch 0


def test_empty_dataset():
    empty = ds.NumpySlicesDataset(np.zeros((0, 3)), shuffle=False)
    assert list(empty) == [] and empty.get_dataset_size() == 0
    assert list(empty.batch(4)) == [] and list(empty.repeat()) == []
    with pytest.raises(RuntimeError, match="no rows"):
        empty.output_shapes()


def test_stopping_early_ends_the_prefetch_thread():
    ds.config.set_prefetch_size(2)
    before = threading.active_count()
    it = ds.NumpySlicesDataset(np.arange(10000), shuffle=False).create_tuple_iterator()
    next(it)
    it.stop()
    assert threading.active_count() == before
    assert multiprocessing.active_children() == []


def test_finished_iterator_releases_its_thread():
    before = threading.active_count()
    list(data())
    for t in threading.enumerate():
        if t.name == "ms_data_prefetch":
            t.join(timeout=5)
    assert threading.active_count() == before


def test_config_validates():
    with pytest.raises(ValueError, match="set_num_parallel_workers"):
        ds.config.set_num_parallel_workers(0)
    with pytest.raises(TypeError, match="set_seed"):
        ds.config.set_seed("1")
    ds.config.set_prefetch_size(4)
    assert ds.config.get_prefetch_size() == 4 and ds.config.get_seed() == 3
