"""torch-style process groups, as ``mindspore.ops.communication`` 2.10 spells them:
``init_process_group``, ``new_group``, ``destroy_process_group``, ``get_backend``,
``get_global_rank``, ``get_group_rank``, ``get_process_group_ranks``, ``is_available``.

They sit on ``ms_parallel.management`` (MPI underneath): ``new_group(ranks)`` names its
group as MindSpore does (``"hccl_<n>_<sha1 of the ranks>"``), so every member computes the
same name without talking. A TCP ``init_method``/``store`` rendezvous has no meaning over
MPI (the launcher already made the world), so those raise.

>>> get_process_group_ranks(), get_backend(), is_available()
([0], 'hccl', True)
"""

from __future__ import annotations

import hashlib

from ms_parallel import groups, management
from ms_parallel.groups import WORLD, WORLD_ALIASES

__all__ = ["init_process_group", "destroy_process_group", "new_group", "get_backend",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "is_available"]


def is_available() -> bool:
    """Whether distributed communication can be used (MPI through mpi4py)."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1,
                       rank=-1, store=None, group_name="", pg_options=None, device_id=None):
    """Join the job (``init``); ``world_size``, if given, must equal the job's size."""
    if backend not in ("hccl", "mccl", "nccl", "mpi"):
        raise ValueError(f"init_process_group: backend must be 'hccl' (or 'mccl', 'nccl', "
                         f"'mpi'; all run on MPI here), got {backend!r}")
    if init_method is not None or store is not None:
        raise ValueError("init_process_group: init_method/store rendezvous is not used: the "
                         "MPI launcher (microspore run) starts the ranks; leave them None")
    management.init(backend)
    size = management.get_group_size(group_name or WORLD)
    if world_size not in (-1, size):
        raise ValueError(f"init_process_group: world_size is {world_size}, but the job has "
                         f"{size} ranks")
    if rank not in (-1, management.get_rank()):
        raise ValueError(f"init_process_group: rank is {rank}, but this process is rank "
                         f"{management.get_rank()}")


def destroy_process_group(group=None) -> None:
    """Free ``group``; with None (or the world), leave the job (``release``)."""
    if group is None or group in WORLD_ALIASES:
        management.release()
    elif not isinstance(group, str):
        raise TypeError(f"destroy_process_group: group must be a str or None, got "
                        f"{type(group).__name__}")
    else:
        management.destroy_group(group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None) -> str:
    """The name of a new group of the world ranks ``ranks`` (the world's for None); only
    its members call it."""
    if ranks is None:
        return WORLD
    if not isinstance(ranks, list):
        raise TypeError(f"new_group: ranks must be a list, got {type(ranks).__name__}")
    backend = backend or "hccl"
    if backend not in ("hccl", "mccl"):
        raise TypeError(f"new_group: backend must be 'hccl' or 'mccl', got {backend!r}")
    ranks = sorted(ranks)
    digest = hashlib.sha1("_".join(map(str, ranks)).encode()).hexdigest()
    name = f"{backend}_{len(ranks)}_{digest}"
    if name not in groups.names():
        management.create_group(name, ranks)
    return name


def _name(fn, group):
    if group is None:
        return WORLD
    if not isinstance(group, str):
        raise TypeError(f"{fn}: group must be a str or None, got {type(group).__name__}")
    return group


def get_backend(group=None) -> str:
    """MindSpore's backend name of ``group`` ("hccl" unless its name says "mccl")."""
    return "mccl" if "mccl" in _name("get_backend", group) else "hccl"


def get_global_rank(group, group_rank) -> int:
    """The world rank of ``group``'s rank ``group_rank``."""
    if not isinstance(group_rank, int):
        raise TypeError(f"get_global_rank: group_rank must be an int, got {group_rank!r}")
    return management.get_world_rank_from_group_rank(_name("get_global_rank", group),
                                                     group_rank)


def get_group_rank(group, global_rank) -> int:
    """``group``'s rank of the world rank ``global_rank``."""
    if not isinstance(global_rank, int):
        raise TypeError(f"get_group_rank: global_rank must be an int, got {global_rank!r}")
    return management.get_group_rank_from_world_rank(global_rank,
                                                     _name("get_group_rank", group))


def get_process_group_ranks(group=None) -> list[int]:
    """The world ranks of ``group``'s members, in group-rank order."""
    return management.get_process_group_ranks(_name("get_process_group_ranks", group))
