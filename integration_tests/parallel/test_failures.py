"""A failing rank ends the whole job quickly, names itself, and leaves no process."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "failing.py"


def _launch(n, *args, launcher_args=()):
    cmd = [sys.executable, "-m", "ms_parallel.run", "-n", str(n), *launcher_args,
           str(SCRIPT), *args]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _alive(pid) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat")
    return not (state.exists() and state.read_text().split(")")[1].split()[0] == "Z")


def _pids(lines):
    # ranks print concurrently, so one line may hold two ranks' output run together
    return [int(pid) for line in lines for pid in re.findall(r"rank \S+ pid (\d+)", line)]


def _log_lines_until(proc, log_dir, text, n_lines, limit=120):
    """The lines of the ranks' log files once ``n_lines`` of them contain ``text``. The
    files are read, not the launcher's output: mpiexec may hold the forwarded output of a
    job that keeps running, and a test waiting on it would wait for ever."""
    deadline = time.monotonic() + limit
    while True:
        lines = [line for f in sorted(Path(log_dir).glob("worker_*.log"))
                 for line in f.read_text().splitlines()]
        if sum(text in line for line in lines) >= n_lines:
            return lines
        assert proc.poll() is None, f"the job ended early: {lines} {proc.stderr.read()}"
        assert time.monotonic() < deadline, f"no {n_lines} {text!r} lines: {lines}"
        time.sleep(0.1)


def _no_process_left(pids):
    deadline = time.monotonic() + 5
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)], "ranks were left running"
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    assert str(SCRIPT) not in out, f"a process of the job is still running:\n{out}"


def test_killed_rank_ends_the_job_and_is_named(tmp_path):
    proc = _launch(3, "wait", "0", launcher_args=("--log_dir", str(tmp_path), "--timeout", "300"))
    try:
        lines = _log_lines_until(proc, tmp_path, "training", 3)
        victim = next(int(m) for line in lines for m in re.findall(r"rank 1 pid (\d+)", line))
        killed = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - killed
    finally:
        proc.kill()
    assert proc.returncode != 0
    assert took < 30
    # MPICH may take a neighbour down in the same instant: the rank killed is named, maybe
    # beside it
    assert re.search(r"microspore run: ranks? (\d+, )*1(, \d+)*( \(together\))? died "
                     r"\(killed by signal SIGKILL\)", err), err
    _no_process_left(_pids(lines))


def test_raising_rank_ends_the_job_with_its_error():
    proc = _launch(3, "raise", "2")
    start = time.monotonic()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert "microspore run: rank 2 failed: ValueError: bad batch at step 3" in err
    assert "Traceback" in out + err  # the rank's own traceback is shown too
    assert time.monotonic() - start < 30
    _no_process_left(_pids(out.splitlines()))


def test_rank_missing_at_init_is_reported_after_the_timeout():
    proc = _launch(2, "late", "1", launcher_args=("--init_timeout", "3"))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert "microspore run: rank 1 did not reach init() within 3 s of the first rank" in err
    _no_process_left(_pids(out.splitlines()))


@pytest.mark.parametrize("args", [["-n", "0"], ["-n", "2", "/no/such/script.py"]])
def test_bad_launch_arguments(args):
    cmd = [sys.executable, "-m", "ms_parallel.run", *args]
    if len(args) == 2:
        cmd.append(str(SCRIPT))
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "microspore run:" in done.stderr
