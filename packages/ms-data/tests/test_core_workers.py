import gc
import multiprocessing
import threading
import time

import numpy as np
import pytest

import ms_data as ds
from ms_data import config
from ms_data.workers import PipelineError


@pytest.fixture(autouse=True)
def _seed():
    old = (config._seed, config._seed_set)
    ds.config.set_seed(11)
    yield
    config._seed, config._seed_set = old


class RandomShift:
    """A random operation with a batch_call, like ms_data.vision's."""

    is_random = True
    gil_free = True
    python_callable = False

    def batch_call(self, x, rng):
        return x + rng.integers(0, 1000, len(x))

    def _row(self, x, rng):
        return self.batch_call(x[None], rng)[0]

    def __call__(self, x):
        return x


def pipeline(workers, multiprocessing_=False):
    d = ds.NumpySlicesDataset({"x": np.arange(2000)}, shuffle=True)
    d = d.map([RandomShift(), lambda x: x * 2], "x", num_parallel_workers=workers,
              python_multiprocessing=multiprocessing_)
    return d.shuffle(64).batch(16)


def values(d):
    return np.concatenate([r[0] for r in d.create_tuple_iterator(num_epochs=1,
                                                                  output_numpy=True)])


def test_results_do_not_depend_on_the_worker_count():
    reference = values(pipeline(1))
    np.testing.assert_array_equal(values(pipeline(2)), reference)
    np.testing.assert_array_equal(values(pipeline(3, True)), reference)
    assert multiprocessing.active_children() == []


def _fails_on_seven(x):
    if x == 7:
        raise ZeroDivisionError("seven is not allowed")
    return x


@pytest.mark.parametrize("workers,processes", [(1, False), (2, False), (2, True)])
def test_user_error_reaches_the_caller_with_its_traceback(workers, processes):
    d = ds.NumpySlicesDataset({"x": np.arange(600)}, shuffle=False)
    d = d.map(_fails_on_seven, "x", num_parallel_workers=workers,
              python_multiprocessing=processes)
    start = time.monotonic()
    with pytest.raises(PipelineError) as info:
        list(d)
    assert time.monotonic() - start < 10
    message = str(info.value)
    assert "_fails_on_seven" in message and "ZeroDivisionError: seven is not allowed" in message
    assert 'raise ZeroDivisionError("seven is not allowed")' in message  # original traceback
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


def test_lambdas_run_in_processes_and_pools_close_on_exhaustion():
    d = ds.NumpySlicesDataset({"x": np.arange(300)}, shuffle=False)
    d = d.map(lambda x: x + 1, "x", num_parallel_workers=2, python_multiprocessing=True)
    assert [int(r[0]) for r in d][:3] == [1, 2, 3]
    gc.collect()
    assert multiprocessing.active_children() == []


def test_abandoned_iterator_is_cleaned_up_by_gc():
    d = ds.NumpySlicesDataset({"x": np.arange(5000)}, shuffle=False)
    d = d.map(lambda x: x + 1, "x", num_parallel_workers=2, python_multiprocessing=True)
    it = d.create_tuple_iterator()
    next(it)
    assert len(multiprocessing.active_children()) == 2
    del it
    gc.collect()
    assert multiprocessing.active_children() == []
    assert not [t for t in threading.enumerate() if t.name.startswith("ms_data")]


def test_error_in_generator_source_names_it():
    def gen():
        yield (np.zeros(2),)
        raise KeyError("broken source")
    with pytest.raises(PipelineError, match="GeneratorDataset: the source.*broken source"):
        list(ds.GeneratorDataset(gen, ["x"]))


def test_random_access_source_in_processes():
    class Squares:
        def __getitem__(self, i):
            return (np.array(i * i),)

        def __len__(self):
            return 700
    d = ds.GeneratorDataset(Squares(), ["sq"], shuffle=False, num_parallel_workers=2)
    assert [int(r[0]) for r in d][-2:] == [698 ** 2, 699 ** 2]
    assert multiprocessing.active_children() == []
