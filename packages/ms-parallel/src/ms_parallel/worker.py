"""What each rank of ``microspore run`` executes: the user's script, with its failure made
the whole job's.

``python -m ms_parallel.worker JOBDIR SCRIPT ARGS...`` (started by mpiexec, one per rank)
records its pid, sends its output to ``JOBDIR/../worker_<rank>.log`` when the launcher
asks for log files, runs SCRIPT as ``__main__`` and records how it ended. A rank that
raises, or exits with a non-zero status, aborts the MPI job (MPI_Abort), so no other rank
waits forever in a collective; the launcher reads the record to name the rank and its
error.
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from pathlib import Path

LOG_DIR_ENV = "MS_PARALLEL_LOG_DIR"


def _rank() -> int:
    for var in ("PMI_RANK", "OMPI_COMM_WORLD_RANK"):
        if var in os.environ:
            return int(os.environ[var])
    return 0


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _redirect(log_dir: str, rank: int) -> None:
    """Send fds 1 and 2 (Python's and C's output) to this rank's log file."""
    fd = os.open(Path(log_dir, f"worker_{rank}.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)


def _abort(code: int) -> None:
    """End this rank now and make MPI end the others (if MPI started)."""
    sys.stdout.flush()
    sys.stderr.flush()
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        mpi.COMM_WORLD.Abort(code)
    os._exit(code)


def main(argv: list[str]) -> None:
    jobdir, script, *args = argv
    rank = _rank()
    job = Path(jobdir)
    _write(job / f"pid.{rank}", str(os.getpid()))
    if os.environ.get(LOG_DIR_ENV):
        _redirect(os.environ[LOG_DIR_ENV], rank)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code:
            if not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
            _write(job / f"error.{rank}", f"exited with status {code}")
            _abort(code)
    except BaseException as e:  # noqa: BLE001 - any failure of the script ends the job
        traceback.print_exc()
        _write(job / f"error.{rank}", f"{type(e).__name__}: {e}")
        _abort(1)
    _write(job / f"done.{rank}", "")


if __name__ == "__main__":
    main(sys.argv[1:])
