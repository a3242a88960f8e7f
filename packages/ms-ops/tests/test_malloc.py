"""ms_ops._malloc: freed arrays stay in the process (no page faults when reallocated)."""

import os
import subprocess
import sys

import pytest

_PROBE = """
import resource, numpy as np
import ms_ops.kernels
def churn():  # a step's worth of 4 MiB arrays, all freed at its end
    for _ in range(10):
        arrays = [np.ones(1 << 20, np.float32) for _ in range(4)]
        del arrays
churn()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
churn()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(**env) -> int:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env={**os.environ, **env}, check=True)
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(not hasattr(os, "confstr") or "CS_GNU_LIBC_VERSION" not in os.confstr_names,
                    reason="glibc only")
def test_freed_arrays_are_reused_without_page_faults():
    assert _faults() < 100
    # glibc's defaults hand the freed heap top back and fault it in again each time
    assert _faults(MS_OPS_MALLOC_TUNING="0") > 1000
