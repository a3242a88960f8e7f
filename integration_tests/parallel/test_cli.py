"""``microspore run`` (the registered CLI command): log files per rank, --join."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "hello.py"


def _microspore():
    exe = Path(sys.executable).parent / "microspore"
    if exe.exists():
        return [str(exe)]
    if shutil.which("microspore") is None:
        pytest.skip("the microspore command is not installed")
    return ["microspore"]


def test_run_writes_a_log_per_rank_and_joins(tmp_path):
    cmd = [*_microspore(), "run", "-n", "2", "--log_dir", str(tmp_path), "--join", str(SCRIPT)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in range(2):
        log = (tmp_path / f"worker_{r}.log").read_text()
        assert f"rank {r} of 2: sum 3" in log
        assert f"[rank {r}] rank {r} of 2: sum 3" in done.stdout  # streamed by --join


def test_python_m_without_log_dir_shares_the_output():
    done = subprocess.run([sys.executable, "-m", "ms_parallel.run", "--worker_num", "2",
                           str(SCRIPT)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 0 of 2: sum 3" in done.stdout and "rank 1 of 2: sum 3" in done.stdout


def test_without_a_launcher_rank_zero_of_one():
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "rank 0 of 1: sum 1" in done.stdout
