"""A launcher killed by a signal (a test's timeout, SIGKILL) takes its job with it: no
mpiexec, proxy or rank is left running (on Linux, through PR_SET_PDEATHSIG)."""

import os
import subprocess
import sys
import time

import pytest

SCRIPT = """
import time
from ms_parallel.groups import group
from ms_parallel.management import get_rank, init
init()
print("up", flush=True)
if get_rank() == 0:
    group().barrier()  # rank 1 never arrives: rank 0 waits inside MPI
time.sleep(600)
"""


def _left(marker: str) -> list[int]:
    """Live processes (not zombies) whose command line names ``marker``, but not the
    launcher itself."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().decode()
        except OSError:
            continue
        if marker in cmd and "ms_parallel.run" not in cmd:
            found.append(int(pid))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG: Linux")
def test_killed_launcher_leaves_nothing_behind(tmp_path):
    script = tmp_path / "waits_forever.py"
    script.write_text(SCRIPT)
    launcher = subprocess.Popen([sys.executable, "-m", "ms_parallel.run", "-n", "2",
                                 "--init_timeout", "60", str(script)],
                                stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        for line in launcher.stdout:
            if "up" in line or time.monotonic() > deadline:
                break
        assert _left(str(script)), "the job did not start"
    finally:
        launcher.kill()
        launcher.wait()
    deadline = time.monotonic() + 20
    while _left(str(script)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _left(str(script)), "processes of the job outlived its launcher"
