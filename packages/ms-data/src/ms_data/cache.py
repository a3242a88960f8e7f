"""``DatasetCache``: keep the rows a source or a map produced, so later epochs (and other
pipelines with the same session and the same subtree) read them instead of recomputing.

MindSpore's cache is a separate server (``dataset-cache --start``) shared by processes;
here the cache lives in this process: every ``DatasetCache`` with the same ``session_id``
shares one store, keyed by the pipeline subtree's description (``ds.serialize``). An
epoch is stored as it is produced and used once complete. ``size`` (MB, 0: no limit)
bounds the memory; past it, rows go to a temporary directory with ``spilling=True``
(removed with the store), else that subtree is not cached and is recomputed. There is no
server to reach, so ``hostname`` and ``port`` other than the local defaults are refused.
As in MindSpore, a random operation below a cache repeats its first epoch's draws.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import uuid
import weakref
from dataclasses import dataclass

import pyarrow as pa

from ms_data._recorded import Recorded

__all__ = ["DatasetCache", "CacheStat", "cached_batches"]

_UINT32 = 2**32 - 1
_stores: dict[int, _Store] = {}
_lock = threading.Lock()


def _check_int(name, value, low, high):
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"DatasetCache: {name} must be an int in [{low}, {high}], got {value!r}")
    return value


@dataclass
class CacheStat:
    """``get_stat()``: rows cached in memory and on disk, and their average size (bytes)."""

    num_mem_cached: int
    num_disk_cached: int
    avg_cache_sz: int


class _Store:
    """One session's cached epochs: ``{key: [batch or spilled file path]}``."""

    def __init__(self):
        self.entries: dict[str, list] = {}
        self.complete: set[str] = set()
        self.refused: set[str] = set()
        self.nbytes = 0
        self.rows_mem = self.rows_disk = 0
        self.dir: str | None = None
        self._cleanup = None

    def spill_dir(self) -> str:
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="ms_data_cache_")
            self._cleanup = weakref.finalize(self, shutil.rmtree, self.dir, True)
        return self.dir


class DatasetCache(Recorded):
    """A cache session (see the module doc); pass it as ``cache=`` to ``map`` or a source."""

    def __init__(self, session_id, size=0, spilling=False, hostname=None, port=None,
                 num_connections=None, prefetch_size=None):
        self.session_id = _check_int("session_id", session_id, 1, _UINT32)
        self.size = _check_int("size", size, 0, 2**63 - 1)
        if not isinstance(spilling, bool):
            raise TypeError(f"DatasetCache: spilling must be a bool, got {spilling!r}")
        if hostname not in (None, "127.0.0.1", "localhost") or port not in (None, 50052):
            raise ValueError("DatasetCache: microspore's cache lives in this process; there is "
                             "no cache server to reach at another hostname or port")
        for name, value in (("num_connections", num_connections),
                            ("prefetch_size", prefetch_size)):
            if value is not None:
                _check_int(name, value, 1, 2**31 - 1)
        self.spilling, self.hostname, self.port = spilling, hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size
        with _lock:
            self._store = _stores.setdefault(session_id, _Store())

    def __getstate__(self):  # a worker process binds to its own store of the session
        return {k: v for k, v in self.__dict__.items() if k != "_store"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        with _lock:
            self._store = _stores.setdefault(self.session_id, _Store())

    def get_stat(self) -> CacheStat:
        s = self._store
        rows = s.rows_mem + s.rows_disk
        return CacheStat(s.rows_mem, s.rows_disk, s.nbytes // rows if rows else 0)

    def _fits(self, nbytes: int) -> bool:
        return self.size == 0 or self._store.nbytes + nbytes <= self.size * 2**20

    def _put(self, entry: list, batch: pa.RecordBatch) -> bool:
        s = self._store
        if self._fits(batch.nbytes):
            entry.append(batch)
            s.nbytes += batch.nbytes
            s.rows_mem += batch.num_rows
            return True
        if not self.spilling:
            return False
        path = os.path.join(s.spill_dir(), f"{len(os.listdir(s.dir))}.arrow")
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, batch.schema) as writer:
            writer.write_batch(batch)
        entry.append(path)
        s.rows_disk += batch.num_rows
        return True


def _read(item) -> pa.RecordBatch:
    if isinstance(item, pa.RecordBatch):
        return item
    with pa.memory_map(item) as source:
        return pa.ipc.open_file(source).get_batch(0)


def _key(node) -> str:
    from ms_data.serializer import serialize

    description = serialize(node)
    text = json.dumps(description, sort_keys=True)
    if "__unserializable__" not in text:
        return text
    # a subtree holding Python objects that have no description is keyed by this node alone
    return node.__dict__.setdefault("_cache_key", f"node:{uuid.uuid4().hex}")


def cached_batches(cache: DatasetCache, node, produce):
    """``produce()``'s batches, served from and stored into ``cache``."""
    store, key = cache._store, _key(node)
    if key in store.complete:
        for item in list(store.entries[key]):
            yield _read(item)
        return
    caching = key not in store.refused and key not in store.entries
    entry: list = []
    if caching:
        store.entries[key] = entry
    try:
        for batch in produce():
            if caching and not cache._put(entry, batch):
                caching = False
                store.refused.add(key)
                del store.entries[key]
            yield batch
    except BaseException:
        if caching:
            store.entries.pop(key, None)
        raise
    if caching:
        store.complete.add(key)
