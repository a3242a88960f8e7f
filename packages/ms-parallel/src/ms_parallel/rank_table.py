"""Rank tables for the launcher: ``microspore run --rank_table_file hccl.json``.

The table (hccl_tools' JSON) is read by ms-device-ascend, which registers its reader as the
registry entry ``("rank_table", "hccl")``; ms-parallel sits beside it and cannot import it.
The launcher starts one rank per device of the table, on this machine only, and each rank
is started by mpiexec with the table's ``DEVICE_ID`` and its ``RANK_ID`` in its environment.
"""

from __future__ import annotations

from ms_parallel.launch import LaunchError
from ms_tensor import registry

__all__ = ["rank_table_devices"]


def rank_table_devices(path: str, worker_num: int | None) -> list[int]:
    """The device id of each rank (by rank id) in the table at ``path``; LaunchError when
    no reader is installed, the table is invalid, spans several servers, or disagrees with
    an explicit ``worker_num``."""
    read = registry.load().lookup("rank_table", "hccl")
    if read is None:
        raise LaunchError("--rank_table_file needs ms-device-ascend (it reads HCCL rank "
                          "tables): pip install ms-device-ascend")
    try:
        ranks = read(path)
    except (OSError, ValueError) as e:
        raise LaunchError(str(e)) from None
    servers = sorted({r.server_id for r in ranks})
    if len(servers) > 1:
        raise LaunchError(f"rank table {path} spans {len(servers)} servers ({', '.join(servers)}"
                          "); microspore run starts one machine's ranks")
    if worker_num is not None and worker_num != len(ranks):
        raise LaunchError(f"--worker_num {worker_num} but rank table {path} has {len(ranks)} "
                          "ranks")
    return [r.device_id for r in ranks]
