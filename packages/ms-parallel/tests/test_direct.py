"""The eager collectives' C path (ms_parallel.direct) against the mpi4py path: both give
numpy's values on 2 and 3 ranks (scripts/direct_paths.py holds the checks), and the C
path takes exactly the operators' dtypes that MPI reads as they are."""

from pathlib import Path

import numpy as np
import pytest

from ms_parallel import direct
from ms_parallel.collective_def import COMM_DTYPES
from ms_parallel.testing import run_ranks
from ms_tensor import dtype as mstype

SCRIPT = Path(__file__).parent / "scripts" / "direct_paths.py"


def _built() -> bool:
    try:
        from ms_parallel.kernels import _mpi_direct  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("path, n", [("c", 2), ("c", 3), ("mpi4py", 2)])
def test_paths_agree_with_numpy(path, n):
    if path == "c" and not _built():
        pytest.skip("ms_parallel.kernels._mpi_direct was not built (no compiler)")
    done = run_ranks(n, SCRIPT, path)
    assert done.returncode == 0, done.stdout + done.stderr
    for r in range(n):
        assert f"rank {r} of {n}: {path} path ok" in done.stdout


def test_direct_dtypes_are_the_operators_mpi_native_ones():
    dtypes = {mstype.from_numpy(np.dtype(c)) for c in direct.DTYPES}
    assert dtypes == COMM_DTYPES - {mstype.float16, mstype.bfloat16}


def test_handles_are_c_ints():
    class Handle:
        def __init__(self, h):
            self.handle = h

    assert direct.handle(Handle(0x44000000)) == 0x44000000
    assert direct.handle(Handle(0x84000005)) == 0x84000005 - (1 << 32)
    assert direct.handle(Handle((1 << 64) - 2080374779)) == -2080374779
