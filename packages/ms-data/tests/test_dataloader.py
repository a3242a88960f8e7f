"""ms_data.dataloader: PyTorch-style loading (expected values are MindSpore 2.10's)."""

import os

import numpy as np
import pytest

from ms_data import dataloader as dl


def desc(x):
    if isinstance(x, (list, tuple)):
        return [desc(i) for i in x]
    if isinstance(x, dict):
        return {k: desc(v) for k, v in x.items()}
    if hasattr(x, "asnumpy"):
        a = x.asnumpy()
        return (a.dtype.name, a.tolist())
    return x


class Squares(dl.Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        if i == 99:
            raise KeyError("no row 99")
        return np.array([i, i * 10], np.float32), i


class Stream(dl.IterableDataset):
    def __init__(self, n=10):
        self.n = n

    def __iter__(self):
        info = dl.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


def test_collate_rules_match_mindspore():
    assert desc(dl.default_collate([np.array([1, 2]), np.array([3, 4])])) == \
        ("int64", [[1, 2], [3, 4]])
    assert desc(dl.default_collate([1, 2, 3])) == ("int64", [1, 2, 3])
    assert desc(dl.default_collate([1.5, 2.5])) == ("float64", [1.5, 2.5])
    assert dl.default_collate(["a", "b"]) == ["a", "b"]
    assert desc(dl.default_collate([(np.array(1.0, np.float32), 2),
                                    (np.array(3.0, np.float32), 4)])) == \
        [("float32", [1.0, 3.0]), ("int64", [2, 4])]
    assert desc(dl.default_collate([{"a": np.zeros(2), "b": 1}, {"a": np.ones(2), "b": 2}])) == \
        {"a": ("float64", [[0.0, 0.0], [1.0, 1.0]]), "b": ("int64", [1, 2])}
    assert desc(dl.default_convert([np.array([1, 2]), 3])) == [("int64", [1, 2]), 3]
    with pytest.raises(RuntimeError, match="equal size"):
        dl.default_collate([np.zeros(2), np.zeros(3)])


def test_loader_batches_like_mindspore():
    batches = [desc(b) for b in dl.DataLoader(Squares(), batch_size=2)]
    assert batches == [[("float32", [[0.0, 0.0], [1.0, 10.0]]), ("int64", [0, 1])],
                       [("float32", [[2.0, 20.0], [3.0, 30.0]]), ("int64", [2, 3])],
                       [("float32", [[4.0, 40.0]]), ("int64", [4])]]
    assert len(list(dl.DataLoader(Squares(), batch_size=2, drop_last=True))) == 2
    assert desc(next(iter(dl.DataLoader(Squares(), batch_size=None)))) == \
        [("float32", [0.0, 0.0]), 0]
    assert (len(dl.DataLoader(Squares(), batch_size=2)),
            len(dl.DataLoader(Squares(), batch_size=2, drop_last=True))) == (3, 2)
    tensors = dl.TensorDataset(np.arange(4), np.arange(4) * 2)
    assert [desc(b) for b in dl.DataLoader(tensors, batch_size=3)] == \
        [[("int64", [0, 1, 2]), ("int64", [0, 2, 4])], [("int64", [3]), ("int64", [6])]]
    assert [desc(b) for b in dl.DataLoader(Stream(5), batch_size=2)] == \
        [("int64", [0, 1]), ("int64", [2, 3]), ("int64", [4])]
    assert list(dl.DataLoader(Squares(), batch_size=2, collate_fn=len)) == [2, 2, 1]
    shuffled = [int(i) for b in dl.DataLoader(Squares(), batch_size=5, shuffle=True,
                                              generator=np.random.default_rng(0))
                for i in b[1].asnumpy()]
    assert sorted(shuffled) == [0, 1, 2, 3, 4]


def test_samplers_match_mindspore():
    assert list(dl.BatchSampler(dl.SequentialSampler(range(5)), 2, False)) == \
        [[0, 1], [2, 3], [4]]
    assert [list(dl.DistributedSampler(Squares(), num_replicas=2, rank=r, shuffle=False))
            for r in range(2)] == [[0, 2, 4], [1, 3, 0]]
    assert [list(dl.DistributedSampler(Squares(), num_replicas=2, rank=r, shuffle=False,
                                       drop_last=True)) for r in range(2)] == [[0, 2], [1, 3]]
    shuffled = [list(dl.DistributedSampler(Squares(), 2, r, seed=3)) for r in range(2)]
    assert sorted(shuffled[0] + shuffled[1][:2]) == [0, 1, 2, 3, 4]
    assert sorted(dl.RandomSampler(range(5))) == [0, 1, 2, 3, 4]
    assert len(list(dl.RandomSampler(range(5), replacement=True, num_samples=7))) == 7


def test_argument_errors_match_mindspore():
    with pytest.raises(ValueError, match="shuffle cannot be specified when dataset is iterable"):
        dl.DataLoader(Stream(), shuffle=True)
    with pytest.raises(ValueError, match="sampler cannot be specified with shuffle"):
        dl.DataLoader(Squares(), shuffle=True, sampler=[0, 1])
    with pytest.raises(ValueError, match="num_workers"):
        dl.DataLoader(Squares(), num_workers=-1)
    assert dl.get_worker_info() is None


def test_workers_give_the_same_batches_in_order():
    serial = [desc(b) for b in dl.DataLoader(Squares(), batch_size=2)]
    assert [desc(b) for b in dl.DataLoader(Squares(), batch_size=2, num_workers=2)] == serial
    ids = sorted(int(i) for b in dl.DataLoader(Stream(10), batch_size=2, num_workers=2)
                 for i in b.asnumpy())
    assert ids == list(range(10))  # each worker read its own share via get_worker_info


def _record_init(worker_id):
    os.environ["MS_DATA_TEST_WORKER"] = str(worker_id)


class WhoAmI(dl.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = dl.get_worker_info()
        return np.array([info.id, int(os.environ["MS_DATA_TEST_WORKER"]), info.num_workers])


def test_worker_info_init_fn_and_errors():
    rows = [r for b in dl.DataLoader(WhoAmI(), batch_size=1, num_workers=2,
                                     worker_init_fn=_record_init) for r in b.asnumpy().tolist()]
    assert sorted(rows) == [[0, 0, 2], [0, 0, 2], [1, 1, 2], [1, 1, 2]]
    with pytest.raises(RuntimeError, match="KeyError: 'no row 99'"):
        list(dl.DataLoader(Squares(), sampler=[0, 99], batch_size=1, num_workers=2))
