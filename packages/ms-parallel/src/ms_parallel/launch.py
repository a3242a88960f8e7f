"""Running a script on N ranks over ``mpiexec`` and watching the job.

``launch(script, args, worker_num=4)`` starts ``mpiexec -n 4 python -m ms_parallel.worker
...`` in its own process group and waits. The job fails, and every process of it is
killed, when a rank raises or exits non-zero (the worker aborts MPI; the launcher then
names the rank and its error), when a rank dies (mpiexec reports its pid, which the
worker recorded), when some rank reached ``init()`` and another has not within
``init_timeout`` seconds, or after ``timeout`` seconds in all. The result says which.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ms_parallel.hostfile import read_hostfile
from ms_parallel.management import ARRIVAL_DIR_ENV
from ms_parallel.worker import LOG_DIR_ENV

__all__ = ["launch", "JobResult", "find_mpiexec", "LaunchError"]

_POLL = 0.05
_GRACE = 5.0  # seconds the other ranks get to end after one failed, before SIGKILL
_PID_LINE = re.compile(r"PID (\d+) RUNNING AT")
_EXIT_LINE = re.compile(r"EXIT CODE: (\d+)")


class LaunchError(RuntimeError):
    """The job could not be started (no mpiexec, no script...)."""


@dataclass
class JobResult:
    """How a job ended: ``returncode`` 0 for success; ``message`` names the failing rank."""

    returncode: int
    message: str = ""
    failed_rank: int | None = None
    logs: dict[int, Path] = field(default_factory=dict)


def find_mpiexec() -> str:
    """``mpiexec`` beside this Python (MPICH's wheel installs it there), else on PATH."""
    here = Path(sys.executable).parent / "mpiexec"
    if here.exists():
        return str(here)
    found = shutil.which("mpiexec")
    if found is None:
        raise LaunchError("mpiexec not found: install an MPI (`pip install "
                          "ms-parallel[mpich]` brings MPICH) or put mpiexec on PATH")
    return found


def launch(script: str, args=(), *, worker_num: int = 1, log_dir: str | None = None,
           join: bool = False, init_timeout: float = 60.0, timeout: float | None = None,
           out=None, rank_table: tuple[str, list[int]] | None = None,
           hostfile: str | None = None, per_host: int | None = None) -> JobResult:
    """Run ``script args...`` on ``worker_num`` ranks; see the module docstring.

    Args:
        log_dir: write each rank's output to ``log_dir/worker_<rank>.log`` (else the
            ranks share this process's output).
        join: with ``log_dir``, also stream the logs here as they grow.
        out: where the launcher's own messages go (``sys.stderr``).
        rank_table: ``(path, device id per rank)`` of an HCCL rank table: the ranks get
            ``RANK_TABLE_FILE`` and ``RANK_SIZE``, and each its ``RANK_ID``/``DEVICE_ID``.
        hostfile: the machines (``host[:slots]`` lines, hostfile.py), given to mpiexec
            as ``-f``; ``per_host``: ranks per machine (mpiexec's ``-ppn``).
    """
    if not isinstance(worker_num, int) or worker_num < 1:
        raise LaunchError(f"worker_num must be a positive int, got {worker_num!r}")
    if not Path(script).is_file():
        raise LaunchError(f"no such script: {script}")
    out = out or sys.stderr
    jobdir = Path(tempfile.mkdtemp(prefix="ms_parallel_job_"))
    env = dict(os.environ, **{ARRIVAL_DIR_ENV: str(jobdir)})
    env.pop(LOG_DIR_ENV, None)
    worker = [sys.executable, "-m", "ms_parallel.worker", str(jobdir), script, *args]
    if rank_table is None:
        ranks = ["-n", str(worker_num), *worker]
    else:
        path, devices = rank_table
        if len(devices) != worker_num:
            raise LaunchError(f"rank table {path} has {len(devices)} ranks, not {worker_num}")
        env.update({"RANK_TABLE_FILE": path, "RANK_SIZE": str(worker_num)})
        # one mpiexec segment per rank, each started with its own RANK_ID and DEVICE_ID
        ranks = []
        for rank, device in enumerate(devices):
            ranks += [*([":"] if rank else []), "-n", "1", "-env", "RANK_ID", str(rank),
                      "-env", "DEVICE_ID", str(device), *worker]
    logs = {}
    if log_dir is not None:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
        env[LOG_DIR_ENV] = str(Path(log_dir).resolve())
        logs = {r: Path(log_dir, f"worker_{r}.log") for r in range(worker_num)}
    hosts = []
    if hostfile is not None:
        try:
            read_hostfile(hostfile)  # a bad line is reported here, naming file and line
        except ValueError as e:
            raise LaunchError(str(e)) from None
        hosts = ["-f", str(Path(hostfile).resolve())]
    if per_host is not None:
        if hostfile is None:
            raise LaunchError("per_host (--local_worker_num) needs a host file")
        hosts += ["-ppn", str(per_host)]
    cmd = [find_mpiexec(), *hosts, *ranks]
    try:
        job = _Job(cmd, env, jobdir, worker_num, out)
        result = job.wait(init_timeout, timeout, logs if join else {})
    finally:
        shutil.rmtree(jobdir, ignore_errors=True)
    result.logs = logs
    return result


class _Job:
    def __init__(self, cmd, env, jobdir: Path, n: int, out):
        self.jobdir = jobdir
        self.n = n
        self.out = out
        self.lines: list[str] = []
        self.first_gone: list[int] = []  # the ranks seen gone first while the job ran
        # Its own session: killing the group reaches mpiexec, its proxies and the ranks.
        # Being in its own session, it would outlive a launcher killed by a signal (a
        # test's timeout, Ctrl-C's SIGKILL): on Linux, mpiexec gets SIGTERM when the
        # launcher dies, and Hydra then ends the proxies and the ranks.
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True, preexec_fn=_die_with_parent)
        self.reader = threading.Thread(target=self._forward, daemon=True)
        self.reader.start()

    def _forward(self):
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace")
            self.lines.append(line)
            sys.stdout.write(line)
            sys.stdout.flush()

    def _files(self, kind: str) -> dict[int, Path]:
        found = {}
        for p in self.jobdir.glob(f"{kind}.*"):
            suffix = p.name.split(".", 1)[1]
            if suffix.isdigit():
                found[int(suffix)] = p
        return found

    def wait(self, init_timeout, timeout, stream) -> JobResult:
        start = time.monotonic()
        tails = {r: _Tail(p) for r, p in stream.items()}
        failure = None
        try:
            while self.proc.poll() is None:
                time.sleep(_POLL)
                for r, t in tails.items():
                    t.pump(r)
                now = time.monotonic()
                self._watch_ranks()
                failure = failure or self._error() or self._missing(init_timeout)
                if failure is None and timeout is not None and now - start > timeout:
                    failure = JobResult(124, f"the job ran past its timeout of {timeout:g} s")
                if failure is not None:
                    self._end(failure)
                    break
        except KeyboardInterrupt:
            self._kill()
            raise
        finally:
            self._kill()  # whatever is left of the job, always
            self.reader.join(timeout=2)
            for r, t in tails.items():
                t.pump(r)
        rc = self.proc.returncode
        if failure is None:
            failure = self._error() or self._died(rc)
        if failure is None:
            return JobResult(rc)
        if failure.returncode == 0:
            failure.returncode = rc or 1
        print(f"microspore run: {failure.message}", file=self.out)
        return failure

    def _error(self) -> JobResult | None:
        errors = self._files("error")
        if not errors:
            return None
        rank = min(errors, key=lambda r: errors[r].stat().st_mtime)
        return JobResult(0, f"rank {rank} failed: {errors[rank].read_text().strip()}",
                         failed_rank=rank)

    def _missing(self, init_timeout) -> JobResult | None:
        arrived = self._files("rank")
        if not arrived or len(arrived) == self.n:
            return None
        first = min(p.stat().st_mtime for p in arrived.values())
        if time.time() - first < init_timeout:
            return None
        missing = sorted(set(range(self.n)) - set(arrived))
        names = ", ".join(map(str, missing))
        return JobResult(1, f"rank{'s' if len(missing) > 1 else ''} {names} did not reach "
                            f"init() within {init_timeout:g} s of the first rank",
                         failed_rank=missing[0])

    def _watch_ranks(self) -> None:
        """Note the ranks whose processes are gone (or zombies not yet reaped) when the
        first is seen gone: once one dies, MPICH and mpiexec take the others down within
        milliseconds, and mpiexec's report may name any of them."""
        if self.first_gone:
            return
        for rank, path in sorted(self._files("pid").items()):
            try:
                stat = Path(f"/proc/{int(path.read_text())}/stat").read_text()
            except FileNotFoundError:
                self.first_gone.append(rank)
                continue
            except (OSError, ValueError):
                continue
            if stat.rsplit(")", 1)[1].split()[0] == "Z":
                self.first_gone.append(rank)

    def _died(self, rc) -> JobResult | None:
        if rc == 0:
            return None
        text = "".join(self.lines[-200:])
        pid = _PID_LINE.search(text)
        if pid:
            pids = {int(p.read_text()): r for r, p in self._files("pid").items()}
            ranks = self.first_gone or [r for r in (pids.get(int(pid.group(1))),) if r is not None]
            code = _EXIT_LINE.search(text)
            how = _describe(int(code.group(1))) if code else f"status {rc}"
            who = (f"rank {ranks[0]}" if len(ranks) == 1 else
                   f"ranks {', '.join(map(str, ranks))} (together)" if ranks else
                   f"process {pid.group(1)}")
            return JobResult(rc, f"{who} died ({how})", failed_rank=ranks[0] if ranks else None)
        return JobResult(rc, f"mpiexec ended with status {rc}")

    def _end(self, failure: JobResult) -> None:
        """Give the ranks a moment to end after a failure, then kill what is left."""
        deadline = time.monotonic() + _GRACE
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(_POLL)

    def _kill(self) -> None:
        """Kill mpiexec's process group and every rank (Hydra's proxies put the ranks in
        process groups of their own, so the ranks are killed by the pids they recorded)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for path in self._files("pid").values():
            try:
                pid = int(path.read_text())
                # only a process of this job: its command line names the job directory
                if str(self.jobdir) in Path(f"/proc/{pid}/cmdline").read_bytes().decode():
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError):
                pass
        self.proc.wait()


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the launcher's thread ends (Linux prctl
    PR_SET_PDEATHSIG; elsewhere nothing)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


def _describe(code: int) -> str:
    """Hydra's EXIT CODE for a rank killed by a signal is the signal's number."""
    try:
        return f"killed by signal {signal.Signals(code).name}"
    except ValueError:
        return f"exit code {code}"


class _Tail:
    """Follows one rank's log file, printing new lines with the rank in front."""

    def __init__(self, path: Path):
        self.path = path
        self.pos = 0
        self.partial = ""

    def pump(self, rank: int) -> None:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                f.seek(self.pos)
                data = f.read()
                self.pos = f.tell()
        except FileNotFoundError:
            return
        *done, self.partial = (self.partial + data).split("\n")
        for line in done:
            sys.stdout.write(f"[rank {rank}] {line}\n")
        sys.stdout.flush()
