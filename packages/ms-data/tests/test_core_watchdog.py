"""Worker-process settings: the watchdog and the slow-worker warning interval."""

import os
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

import ms_data as ds
from ms_data import config

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads process states from /proc")


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except FileNotFoundError:
        return False


def test_watchdog_ends_workers_whose_main_process_was_killed():
    script = textwrap.dedent("""
        import multiprocessing, os, time
        from ms_data._pools import ProcessPool
        pool = ProcessPool(time.sleep, 1, multiprocessing.get_context("fork"), watchdog=WATCH)
        pool.submit(60)  # the worker is busy for a minute
        print(pool._workers[0].process.pid, flush=True)
        os._exit(0)  # dies without stopping its worker, as after SIGKILL
    """)
    out = subprocess.run([sys.executable, "-c", script.replace("WATCH", "True")],
                         capture_output=True, text=True, timeout=60, check=True)
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = _running(pid)
    if alive:
        os.kill(pid, 9)
    assert not alive, "the orphaned worker kept running"


def _slow(x):
    time.sleep(1.3)
    return x


def test_slow_worker_warns_after_the_interval(monkeypatch):
    monkeypatch.setattr(config, "_timeout_interval", 1)
    data = ds.NumpySlicesDataset([1], shuffle=False).map(
        _slow, python_multiprocessing=True, num_parallel_workers=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert data.get_dataset_size() == 1 and len(list(data)) == 1
    assert any("may hang" in str(w.message) for w in caught)
