"""Non-blocking functional collectives (``async_op=True``) and uneven all-to-all: on 2
ranks (scripts/async_comm.py), and in a one-process world."""

from pathlib import Path

import numpy as np
import pytest

from ms_parallel import comm_func as cf
from ms_parallel.p2p_ops import AlltoAllV
from ms_parallel.testing import run_ranks
from ms_tensor import Tensor


def test_on_two_ranks():
    done = run_ranks(2, Path(__file__).parent / "scripts" / "async_comm.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 1 of 2: async ok" in done.stdout


def test_one_process_world():
    t = Tensor(np.arange(3.0))
    handle = cf.all_reduce(t, async_op=True)
    assert isinstance(handle, cf.CommHandle)
    handle.wait()
    assert handle.is_completed()
    np.testing.assert_array_equal(t.asnumpy(), [0.0, 1.0, 2.0])
    out = Tensor(np.zeros((4, 2)))
    x = Tensor(np.arange(8.0).reshape(4, 2))
    assert cf.all_to_all_single(out, x, [4], [4]) is None
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    half = Tensor(np.arange(4.0).astype(np.float16))  # not an MPI type: the operator path
    cf.all_reduce(half, async_op=True).wait()
    np.testing.assert_array_equal(half.asnumpy(), np.arange(4.0))


def test_errors():
    x = Tensor(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="input_split_sizes must be a list of 1"):
        cf.all_to_all_single(Tensor(np.zeros((4, 2))), x, None, [2, 2])
    with pytest.raises(ValueError, match="same other dimensions"):
        cf.all_to_all_single(Tensor(np.zeros((4, 3))), x)
    with pytest.raises(TypeError, match="async_op must be a bool"):
        cf.all_reduce(x, async_op=1)
    with pytest.raises(ValueError, match="AlltoAllV: input 'x' must be flat"):
        AlltoAllV(x, [8], [8])
    with pytest.raises(ValueError, match="send_numel_list must be a list of 1"):
        AlltoAllV(Tensor(np.zeros(4)), [2, 2], [4])
