"""Collectives of picklable Python objects (``all_gather_object``, ``gather_object``,
``broadcast_object_list``, ``scatter_object_list``, ``send_object_list``,
``recv_object_list``), with MindSpore 2.10's signatures: results are written into the
lists given.

mpi4py's lower-case calls pickle and move the objects (a well-kept implementation of
exactly this); in a one-process world they copy through pickle too, so a result is
never the caller's own object. Unpickling runs code from the sender: use them among the
job's own ranks only, as torch.distributed warns for the same functions. ``src``/``dst``
are world ranks.

>>> out = [None]
>>> all_gather_object(out, {"step": 3})  # rank 0 of 1
>>> out
[{'step': 3}]
"""

from __future__ import annotations

import pickle

from ms_parallel.groups import WORLD
from ms_parallel.groups import group as find_group

__all__ = ["all_gather_object", "gather_object", "broadcast_object_list",
           "scatter_object_list", "send_object_list", "recv_object_list"]


def _group(fn, group):
    if group is None:
        group = WORLD
    if not isinstance(group, str):
        raise TypeError(f"{fn}: group must be a str or None, got {type(group).__name__}")
    return find_group(group)


def _comm(g):
    """The group's mpi4py communicator; None in a one-process world."""
    return getattr(g, "comm", None)


def _copy(obj):
    return pickle.loads(pickle.dumps(obj))


def _root(fn, name, rank, g):
    if not isinstance(rank, int) or isinstance(rank, bool) or rank not in g.world_ranks:
        raise ValueError(f"{fn}: {name} must be a world rank of the group "
                         f"{list(g.world_ranks)}, got {rank!r}")
    return g.world_ranks.index(rank)


def _list(fn, name, value, n=None):
    if not isinstance(value, list) or (n is not None and len(value) != n):
        want = f"a list of {n} items (one per rank)" if n is not None else "a list"
        raise TypeError(f"{fn}: {name} must be {want}, got {value!r}")
    return value


def all_gather_object(object_list, obj, group=None) -> None:
    """Rank k's ``obj`` into ``object_list[k]``, on every rank."""
    g = _group("all_gather_object", group)
    _list("all_gather_object", "object_list", object_list, g.size)
    comm = _comm(g)
    object_list[:] = comm.allgather(obj) if comm is not None else [_copy(obj)]


def gather_object(obj, object_gather_list=None, dst=0, group=None) -> None:
    """Rank k's ``obj`` into ``dst``'s ``object_gather_list[k]``."""
    g = _group("gather_object", group)
    root = _root("gather_object", "dst", dst, g)
    if g.rank == root:
        _list("gather_object", "object_gather_list", object_gather_list, g.size)
    comm = _comm(g)
    got = comm.gather(obj, root=root) if comm is not None else [_copy(obj)]
    if g.rank == root:
        object_gather_list[:] = got


def broadcast_object_list(object_list, src=0, group=None, device=None) -> None:
    """``src``'s objects into every rank's ``object_list`` (of the same length)."""
    g = _group("broadcast_object_list", group)
    root = _root("broadcast_object_list", "src", src, g)
    if not _list("broadcast_object_list", "object_list", object_list):
        raise TypeError("broadcast_object_list: object_list must not be empty")
    comm = _comm(g)
    got = comm.bcast(object_list if g.rank == root else None, root=root) \
        if comm is not None else _copy(object_list)
    if len(got) != len(object_list):
        raise ValueError(f"broadcast_object_list: rank {src} sent {len(got)} objects, but "
                         f"this rank's object_list holds {len(object_list)}")
    object_list[:] = got


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0,
                        group=None) -> None:
    """``src``'s ``scatter_object_input_list[k]`` into rank k's
    ``scatter_object_output_list[0]``."""
    fn = "scatter_object_list"
    g = _group(fn, group)
    root = _root(fn, "src", src, g)
    if not _list(fn, "scatter_object_output_list", scatter_object_output_list):
        raise TypeError(f"{fn}: scatter_object_output_list must not be empty")
    if g.rank == root:
        _list(fn, "scatter_object_input_list", scatter_object_input_list, g.size)
    comm = _comm(g)
    scatter_object_output_list[0] = comm.scatter(
        scatter_object_input_list if g.rank == root else None, root=root) \
        if comm is not None else _copy(scatter_object_input_list[0])


def send_object_list(object_list, dst, group=None, device=None) -> None:
    """Send ``object_list`` to ``dst``, whose ``recv_object_list`` receives it."""
    g = _group("send_object_list", group)
    peer = _root("send_object_list", "dst", dst, g)
    _list("send_object_list", "object_list", object_list)
    if peer == g.rank:
        raise ValueError("send_object_list: dst must be another rank than this one "
                         f"({dst})")
    g.comm.send(list(object_list), dest=peer, tag=0)


def recv_object_list(object_list, src=0, group=None, device=None) -> int:
    """Receive ``src``'s ``send_object_list`` into ``object_list`` (of its length)."""
    g = _group("recv_object_list", group)
    peer = _root("recv_object_list", "src", src, g)
    _list("recv_object_list", "object_list", object_list)
    if peer == g.rank:
        raise ValueError(f"recv_object_list: src must be another rank than this one ({src})")
    got = g.comm.recv(source=peer, tag=0)
    if len(got) != len(object_list):
        raise ValueError(f"recv_object_list: rank {src} sent {len(got)} objects, but "
                         f"object_list holds {len(object_list)}")
    object_list[:] = got
    return 0
