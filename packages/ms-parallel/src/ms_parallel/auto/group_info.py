"""Group information files: ``set_auto_parallel_context(group_ckpt_save_file=...)`` and
``restore_group_info_list``.

A sharded run given ``group_ckpt_save_file`` has each rank write the communication groups
its sharded step made and ``ckpt_restore_rank_list``: the ranks whose checkpoint holds the
same contents as this rank's (the same slice of every Parameter and no optimizer part of
it), so a lost checkpoint can be restored from one of theirs. ``restore_group_info_list(file)``
returns that list. As MindSpore's, the file is a protobuf ``ParallelGroupMap`` whatever its
name (``strategy_proto``), so either framework reads the other's.
"""

from __future__ import annotations

import os

from ms_parallel.auto.strategy_proto import from_group_bytes, to_group_bytes

__all__ = ["save_group_info", "restore_group_info_list"]


def save_group_info(sharded, path) -> None:
    """Write ``sharded``'s (a ``ShardedNet``'s) groups and restore rank list to ``path``."""
    same = set(range(sharded.n))
    for name in sharded.param_layout:
        same &= {sharded.rank} if name in sharded.parts else set(sharded.replica_ranks(name))
    blob = to_group_bytes({name: [sharded.world[r] for r in ranks]
                           for ranks, name in sorted(sharded._groups.items())},
                          [sharded.world[r] for r in sorted(same)])
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, path)


def restore_group_info_list(group_info_file_name) -> list:
    """The ranks whose checkpoints equal the saving rank's (see the module doc)."""
    if not isinstance(group_info_file_name, str):
        raise TypeError("For 'restore_group_info_list', the argument 'group_info_file_name' "
                        f"should be str, but got {type(group_info_file_name)}.")
    if not os.path.isfile(group_info_file_name):
        raise ValueError(f"For 'restore_group_info_list', no such group information file: "
                         f"{group_info_file_name}.")
    if os.path.getsize(group_info_file_name) == 0:
        raise ValueError("For 'restore_group_info_list', the group information file should "
                         "not be empty.")
    with open(group_info_file_name, "rb") as f:
        blob = f.read()
    try:
        _, ranks = from_group_bytes(blob, group_info_file_name)
    except ValueError as e:
        raise ValueError(f"For 'restore_group_info_list', {e}") from None
    if not ranks:
        raise ValueError(f"For 'restore_group_info_list', the group information file "
                         f"{group_info_file_name} has no restore rank list.")
    return ranks
