"""Group information files: ``set_auto_parallel_context(group_ckpt_save_file=...)`` and
``restore_group_info_list``.

A sharded run given ``group_ckpt_save_file`` has each rank write (JSON here; MindSpore's is
protobuf) the communication groups its sharded step made and ``ckpt_restore_rank_list``: the
ranks whose checkpoint holds the same contents as this rank's (the same slice of every
Parameter and no optimizer part of it), so a lost checkpoint can be restored from one of
theirs. ``restore_group_info_list(file)`` returns that list, as MindSpore's does.
"""

from __future__ import annotations

import json
import os

__all__ = ["save_group_info", "restore_group_info_list", "FORMAT"]

FORMAT = "microspore-group-info/1"


def save_group_info(sharded, path) -> None:
    """Write ``sharded``'s (a ``ShardedNet``'s) groups and restore rank list to ``path``."""
    same = set(range(sharded.n))
    for name in sharded.param_layout:
        same &= {sharded.rank} if name in sharded.parts else set(sharded.replica_ranks(name))
    data = {"format": FORMAT, "rank": sharded.rank,
            "parallel_group_item": {name: [sharded.world[r] for r in ranks]
                                    for ranks, name in sorted(sharded._groups.items())},
            "ckpt_restore_rank_list": [sharded.world[r] for r in sorted(same)]}
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
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
    try:
        with open(group_info_file_name) as f:
            data = json.load(f)
        ranks = data["ckpt_restore_rank_list"] if data.get("format") == FORMAT else None
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError, KeyError):
        ranks = None
    if not ranks:
        raise ValueError(f"For 'restore_group_info_list', {group_info_file_name} is not a "
                         f"group information file with a restore rank list ({FORMAT})")
    return [int(r) for r in ranks]
