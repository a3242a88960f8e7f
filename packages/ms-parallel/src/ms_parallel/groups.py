"""Communication groups: the world, the groups ``create_group`` makes, and the one-process
world of a script started without a launcher.

Every collective kernel asks ``group(name)`` for a ``Group`` and calls its methods on
numpy arrays. ``MPIGroup`` wraps an mpi4py communicator; ``SelfGroup`` is the world of
one process that needs no MPI at all (rank 0 of 1: every collective is the identity or a
copy), used before ``init()`` when no launcher started the process, so a single-process
script runs unchanged and imports no MPI.
"""

from __future__ import annotations

import os
import threading

import numpy as np

__all__ = ["Group", "SelfGroup", "group", "WORLD", "WORLD_ALIASES",
           "launched", "register", "unregister", "names", "CommError"]

WORLD = "hccl_world_group"
"""MindSpore's default group name; ``nccl_world_group`` and ``mccl_world_group`` are the
same world here (every backend name maps to MPI)."""
WORLD_ALIASES = frozenset({WORLD, "nccl_world_group", "mccl_world_group"})

# Set by mpiexec (Hydra: PMI_*, Open MPI: OMPI_*) in every process it starts.
_LAUNCHER_VARS = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")

_lock = threading.Lock()
_groups: dict[str, Group] = {}
# Callables specialised to a group (eager fast paths, keyed by the caller), dropped
# whenever a group is registered or unregistered, so none outlives the group it captured.
runners: dict = {}
_sizes: dict[str, int] = {}  # every name ever created -> its size (plans key on the name)


class CommError(RuntimeError):
    """Communication is not set up for what was asked (no init(), unknown group...)."""


def launched() -> bool:
    """Whether an MPI launcher (``mpiexec``, ``microspore run``) started this process."""
    return any(v in os.environ for v in _LAUNCHER_VARS)


class Group:
    """A set of ranks that run collectives together. Methods take and return numpy arrays;
    ``op`` is one of ``"sum"``, ``"max"``, ``"min"``, ``"prod"``."""

    name: str
    rank: int
    size: int
    world_ranks: tuple[int, ...]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} rank {self.rank} of {self.size}>"

    def allreduce_runner(self, op):
        """``fn(x) -> a new array``: the allreduce of a C-contiguous x that MPI reads as
        it is (no 16-bit floats), with ``op`` fixed (MPIGroup's has no per-call checks)."""
        return lambda x: self.allreduce(x, op)

    def direct_plan(self, kind, op="sum", root=0):
        """A compiled plan of collective ``kind`` over this group (MPIGroup's), or None."""
        return None


class SelfGroup(Group):
    """The world of a process that is its own job: rank 0 of 1."""

    def __init__(self, name: str = WORLD):
        self.name = name
        self.rank = 0
        self.size = 1
        self.world_ranks = (0,)
        self._mailbox: dict[int, list] = {}

    def allreduce(self, x, op, out=None):
        if out is None:
            return np.array(x, copy=True)
        out[...] = x
        return out

    def allgather(self, x):
        return np.array(x, copy=True)

    def reduce_scatter(self, x, op):
        return np.array(x, copy=True)

    def broadcast(self, x, root):
        return np.array(x, copy=True)

    def alltoall(self, x):
        return np.array(x, copy=True)

    def alltoallv(self, x, send_counts, recv_counts):
        return np.array(x, copy=True)

    def reduce(self, x, op, root):
        return np.array(x, copy=True)

    def gather(self, x, root):
        return np.array(x, copy=True)

    def scatter(self, x, root):
        return np.array(x, copy=True)

    def allgatherv(self, x, counts):
        return np.array(x, copy=True)

    def reduce_scatterv(self, x, counts, op):
        return np.array(x, copy=True)

    def send(self, x, dest, tag):
        """A message to itself waits in a mailbox for the matching ``recv`` (as MPI
        delivers a rank's message to itself)."""
        self._mailbox.setdefault(tag, []).append(np.array(x, copy=True))

    def recv(self, shape, dtype, src, tag):
        box = self._mailbox.get(tag)
        if not box:
            raise CommError(f"Receive: nothing was sent with sr_tag {tag} in this one-process "
                            f"world (group {self.name!r} has 1 rank), so it would wait forever")
        got = box.pop(0)
        if got.shape != tuple(shape):
            raise CommError(f"Receive: expected shape {tuple(shape)} with sr_tag {tag}, but "
                            f"the message has shape {got.shape}")
        return got.astype(dtype, copy=False)

    def iallreduce(self, x, op):
        return _Done(np.array(x, copy=True))

    def nonblocking(self, kind, x, out, op="sum", root=0, peer=0, tag=0, counts=None):
        """MPIGroup's non-blocking calls, done at once: with one rank, each is a copy."""
        if kind == "send":
            self.send(x, peer, tag)
        elif kind == "recv":
            out[...] = self.recv(out.shape, out.dtype, peer, tag)
        elif kind not in ("barrier", "broadcast") and out is not x:
            out[...] = x.reshape(out.shape)
        return _Done(out)

    def barrier(self):
        pass

    def free(self):
        pass


class _Done:
    """A finished request (what a one-process world's non-blocking collective returns)."""

    def __init__(self, value):
        self.value = value

    def test(self) -> bool:
        return True

    def wait(self):
        return self.value


def group(name: str = WORLD) -> Group:
    """The group ``name``; before ``init()`` in an unlaunched process, the one-process world."""
    if name in WORLD_ALIASES:
        name = WORLD
    g = _groups.get(name)
    if g is not None:
        return g
    if name == WORLD:
        if launched():
            raise CommError("a collective ran before init(): this process was started by an "
                            "MPI launcher, so call microspore.communication.init() first")
        with _lock:
            runners.clear()
            return _groups.setdefault(WORLD, SelfGroup())
    raise CommError(f"unknown communication group {name!r}; known groups: "
                    f"{', '.join(sorted(_groups)) or 'none (call init() first)'}")


def register(g: Group) -> None:
    """Make ``g`` known by its name (``init`` registers the world)."""
    with _lock:
        if _sizes.get(g.name, g.size) != g.size:
            raise CommError(f"group name {g.name!r} was used before for {_sizes[g.name]} "
                            f"ranks and cannot name a group of {g.size} (operator plans key "
                            "on the name); choose another name")
        _groups[g.name] = g
        _sizes[g.name] = g.size
        runners.clear()


def unregister(name: str) -> Group | None:
    with _lock:
        runners.clear()
        return _groups.pop(name, None)


def names() -> list[str]:
    return sorted(_groups)
