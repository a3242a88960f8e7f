"""``microspore run`` / ``python -m ms_parallel.run``: msrun's role over mpiexec.

``microspore run -n 4 train.py --lr 0.1`` starts 4 ranks of ``train.py``; the script
calls ``microspore.communication.init()`` and finds its rank as under msrun. The exit
status is 0 when every rank succeeds; otherwise the job is ended at once and the message
names the failing rank and its error.
"""

from __future__ import annotations

import argparse
import os
import sys

from ms_parallel.hostfile import read_hostfile
from ms_parallel.launch import LaunchError, launch
from ms_parallel.rank_table import rank_table_devices

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="microspore run", description="Run a training script on N ranks over MPI.")
    p.add_argument("-n", "--worker_num", "--np", type=int, default=None, dest="worker_num",
                   help="number of ranks (processes) to start (default 1, or the rank "
                        "table's)")
    p.add_argument("--rank_table_file", default=None,
                   help="an HCCL rank table (hccl_tools' JSON, `microspore ascend "
                        "rank-table`): one rank per device, each started with RANK_ID, "
                        "DEVICE_ID, RANK_SIZE and RANK_TABLE_FILE set")
    p.add_argument("--local_worker_num", type=int, default=None,
                   help="ranks per machine with --hostfile (mpiexec's -ppn); without "
                        "one, it must equal --worker_num")
    p.add_argument("--hostfile", "-f", default=None,
                   help="the machines, one 'host' or 'host:slots' a line (Hydra's host "
                        "file, given to mpiexec); --worker_num defaults to the slots")
    p.add_argument("--log_dir", default=None,
                   help="write each rank's output to LOG_DIR/worker_<rank>.log")
    p.add_argument("--join", action="store_true",
                   help="with --log_dir, also stream every rank's log here")
    p.add_argument("--init_timeout", type=float, default=60.0,
                   help="seconds a rank may lag behind the first one reaching init() "
                        "before the job is ended (default 60)")
    p.add_argument("--timeout", type=float, default=None,
                   help="end the job after this many seconds")
    p.add_argument("script", help="the Python script every rank runs")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        devices = None
        if args.rank_table_file is not None:
            devices = rank_table_devices(args.rank_table_file, args.worker_num)
            args.worker_num = len(devices)
        per_host = None
        if args.hostfile is not None:
            try:
                slots = sum(k for _, k in read_hostfile(args.hostfile))
            except ValueError as e:
                raise LaunchError(str(e)) from None
            args.worker_num = slots if args.worker_num is None else args.worker_num
            per_host = args.local_worker_num
        elif args.local_worker_num not in (None, args.worker_num or 1):
            raise LaunchError("--local_worker_num differs from --worker_num: name the "
                              "machines with --hostfile")
        args.worker_num = 1 if args.worker_num is None else args.worker_num
        result = launch(args.script, args.args, worker_num=args.worker_num,
                        log_dir=args.log_dir, join=args.join,
                        init_timeout=args.init_timeout, timeout=args.timeout,
                        rank_table=None if devices is None else
                        (os.path.abspath(args.rank_table_file), devices),
                        hostfile=args.hostfile, per_host=per_host)
    except LaunchError as e:
        print(f"microspore run: {e}", file=sys.stderr)
        return 2
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
