"""ms_ops.tuning: the tunings are the user's environment; microspore only reports them."""

import os
import subprocess
import sys

import pytest

from ms_ops import tuning

_PROBE = """
import resource, numpy as np
from ms_ops import tuning
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


def _run(extra: dict) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env={**env, **extra}, check=True, timeout=120)
    setting, faults = out.stdout.strip().rsplit("\n", 1)
    return setting, int(faults)


@pytest.mark.skipif(not hasattr(os, "confstr") or "CS_GNU_LIBC_VERSION" not in os.confstr_names,
                    reason="glibc only")
def test_the_documented_malloc_variables_keep_freed_memory_and_are_reported():
    setting, faults = _run(tuning.MALLOC)
    assert setting == ("MALLOC_MMAP_THRESHOLD_=33554432, "
                       "MALLOC_TRIM_THRESHOLD_=67108864") and faults < 100
    # glibc's defaults hand the freed heap top back and fault it in again
    setting, faults = _run({})
    assert setting == "glibc defaults" and faults > 1000


def test_settings_report_the_openmp_wait_variables(monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    assert tuning.settings()["openmp waiting"] == "OMP_WAIT_POLICY=PASSIVE"
    monkeypatch.delenv("OMP_WAIT_POLICY")
    assert tuning.settings()["openmp waiting"] == "libgomp defaults"

