"""ms_ops.tuning: malloc tuning only when the program asks for it."""

import os
import subprocess
import sys

import pytest

_PROBE = """
import resource, sys, numpy as np
import ms_ops.kernels
from ms_ops import tuning
if sys.argv[1] == "tuned":
    assert tuning.keep_freed_memory()
print(tuning.settings()["malloc"])
def churn():  # a step's worth of 4 MiB arrays, all freed at its end
    for _ in range(10):
        arrays = [np.ones(1 << 20, np.float32) for _ in range(4)]
        del arrays
churn()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
churn()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _run(mode: str) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True,
                         env=env, check=True)
    setting, faults = out.stdout.strip().rsplit("\n", 1)
    return setting, int(faults)


@pytest.mark.skipif(not hasattr(os, "confstr") or "CS_GNU_LIBC_VERSION" not in os.confstr_names,
                    reason="glibc only")
def test_keep_freed_memory_is_explicit_and_reported():
    setting, faults = _run("tuned")
    assert setting.startswith("keep_freed_memory()") and faults < 100
    # untouched: glibc's defaults hand the freed heap top back and fault it in again
    setting, faults = _run("default")
    assert setting == "glibc defaults" and faults > 1000


def test_settings_report_the_openmp_wait_variables(monkeypatch):
    from ms_ops import tuning

    monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    assert tuning.settings()["openmp waiting"] == "OMP_WAIT_POLICY=PASSIVE"
    monkeypatch.delenv("OMP_WAIT_POLICY")
    assert tuning.settings()["openmp waiting"] == "libgomp defaults"


_WAIT = """
import ctypes, os
from ms_ops import tuning
before = dict(os.environ)
assert tuning.openmp_passive_wait()
import ms_ops.kernels._pool  # the kernels run on the libgomp just loaded
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
print("SAME", dict(os.environ) == before, libc.getenv(b"OMP_WAIT_POLICY"), flush=True)
print("SETTING", tuning.settings()["openmp waiting"], flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="libgomp")
def test_openmp_passive_wait_configures_libgomp_and_leaves_the_environment():
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    out = subprocess.run([sys.executable, "-c", _WAIT], capture_output=True, text=True,
                         env={**env, "OMP_DISPLAY_ENV": "true"}, check=True, timeout=120)
    # libgomp prints what it read when it loaded
    assert "OMP_WAIT_POLICY = 'PASSIVE'" in out.stderr
    assert "SAME True None" in out.stdout
    assert "SETTING openmp_passive_wait() (OMP_WAIT_POLICY=PASSIVE, GOMP_SPINCOUNT=20000)" \
        in out.stdout


def test_openmp_passive_wait_is_refused_once_libgomp_runs():
    code = ("import ms_ops.kernels._pool; from ms_ops import tuning; "
            "tuning.openmp_passive_wait()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode != 0 and "libgomp is already loaded" in out.stderr
