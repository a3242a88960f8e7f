"""``DataLoader``: batches from a map-style or iterable dataset, PyTorch's semantics, with
optional worker processes (``ms_data.dataloader._workers``)."""

from __future__ import annotations

import itertools
import weakref

import numpy as np

from ms_data import config
from ms_data.dataloader._workers import WorkerSet, _Exhausted
from ms_data.dataloader.collate import default_collate, default_convert
from ms_data.dataloader.dataset import IterableDataset
from ms_data.dataloader.sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


class _Fetch:
    """Turns indices (or the next stretch of a stream) into one collated batch."""

    def __init__(self, collate_fn, batch_size, drop_last, batched: bool):
        self.collate_fn, self.batch_size = collate_fn, batch_size
        self.drop_last, self.batched = drop_last, batched

    def __call__(self, dataset, indices):
        if not self.batched:
            return self.collate_fn(dataset[indices])
        return self.collate_fn([dataset[i] for i in indices])

    def stream(self, dataset):
        it = iter(dataset)
        if not self.batched:
            yield from (self.collate_fn(x) for x in it)
            return
        while True:
            chunk = list(itertools.islice(it, self.batch_size))
            if not chunk or (self.drop_last and len(chunk) < self.batch_size):
                return
            yield self.collate_fn(chunk)


class DataLoader:
    """Iterate ``dataset`` in batches (see PyTorch's ``torch.utils.data.DataLoader``)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
                 timeout=0.0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor=None, persistent_workers=False,
                 in_order=True):
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing. let num_workers > 0 to enable multiprocessing.")
        self.iterable = isinstance(dataset, IterableDataset)
        if self.iterable:
            if shuffle not in (None, False):
                raise ValueError("shuffle cannot be specified when dataset is iterable style.")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("sampler and batch_sampler cannot be specified when dataset "
                                 "is iterable style.")
        elif sampler is not None and shuffle:
            raise ValueError("sampler cannot be specified with shuffle.")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self.iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle \
                else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self.iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.num_workers, self.timeout, self.worker_init_fn = num_workers, timeout, worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = 2 if prefetch_factor is None else prefetch_factor
        self.generator = generator
        batched = batch_size is not None or batch_sampler is not None
        collate_fn = collate_fn or (default_collate if batched else default_convert)
        self.collate_fn = collate_fn
        self._fetch = _Fetch(collate_fn, batch_size, drop_last, batched)

    def _requests(self):
        if self.batch_sampler is not None:
            return iter(self.batch_sampler)
        return iter(self.sampler)

    def __len__(self):
        if self.iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self):
        if self.num_workers == 0:
            if self.iterable:
                yield from self._fetch.stream(self.dataset)
            else:
                for indices in self._requests():
                    yield self._fetch(self.dataset, indices)
            return
        yield from self._parallel()

    def _parallel(self):
        context = self.multiprocessing_context or config.get_multiprocessing_start_method()
        seed = int((self.generator or np.random.default_rng()).integers(2**62))
        workers = WorkerSet(self.dataset, self._fetch, self.num_workers, context,
                            self.worker_init_fn, seed, self.timeout)
        closer = weakref.finalize(self, workers.close)
        try:
            yield from self._drive(workers)
        finally:
            closer()

    def _drive(self, workers):
        depth = self.prefetch_factor * self.num_workers
        rids = itertools.count()
        pending = []  # request ids in order
        if self.iterable:
            active = list(range(self.num_workers))
            turn = itertools.cycle(range(self.num_workers))
            sent = {}

            def send_next():
                for _ in range(self.num_workers):
                    w = next(turn)
                    if w in active:
                        rid = next(rids)
                        workers.send(w, rid, None)
                        sent[rid] = w
                        pending.append(rid)
                        return

            for _ in range(depth):
                send_next()
            while pending:
                rid = pending.pop(0)
                value = workers.result(rid)
                if value is _Exhausted:
                    if sent[rid] in active:
                        active.remove(sent[rid])
                else:
                    yield value
                if active:
                    send_next()
            return
        requests = self._requests()
        for _, indices in zip(range(depth), requests):
            rid = next(rids)
            workers.send(rid % self.num_workers, rid, indices)
            pending.append(rid)
        while pending:
            rid = pending.pop(0)
            value = workers.result(rid)
            nxt = next(requests, None)
            if nxt is not None:
                new = next(rids)
                workers.send(new % self.num_workers, new, nxt)
                pending.append(new)
            yield value
