"""The collectives on 1, 2 and 4 ranks: values against numpy, gradients against finite
differences of the job's objective, inside compiled graphs (scripts/collectives.py
holds the checks; a failed one fails its rank and so the job)."""

from pathlib import Path

import numpy as np
import pytest

from ms_ops import TensorSpec
from ms_parallel.p2p_ops import AlltoAll, Receive, Send
from ms_parallel.reduce_ops import AllGather, AllReduce, Broadcast
from ms_parallel.testing import run_ranks
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.mark.parametrize("n", [1, 2, 4])
def test_collectives_on_ranks(n):
    done = run_ranks(n, SCRIPTS / "collectives.py")
    assert done.returncode == 0, done.stdout + done.stderr
    for r in range(n):
        assert f"rank {r} of {n}: collectives ok" in done.stdout


def test_one_process_world_is_identity():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    for op in ("sum", "max", "min", "prod"):
        np.testing.assert_array_equal(AllReduce(x, op).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(AllGather(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(Broadcast(x, 0).asnumpy(), x.asnumpy())


def test_inference_and_errors():
    spec = TensorSpec((4, 3), mstype.float32)
    assert AllGather.abstract_eval(spec) == TensorSpec((4, 3), mstype.float32)
    assert AlltoAll.abstract_eval(spec, split_count=1, split_dim=0, concat_dim=1) == spec
    with pytest.raises(ValueError, match="AllReduce: op must be one of"):
        AllReduce(Tensor(np.ones(2)), "mean")
    with pytest.raises(TypeError, match="AllReduce: input 'x' has dtype Bool"):
        AllReduce(Tensor(np.ones(2, bool)))
    with pytest.raises(ValueError, match="AllGather: input 'x' must have at least one"):
        AllGather(Tensor(np.float32(1.0)))
    with pytest.raises(ValueError, match="Broadcast: root_rank must be a rank"):
        Broadcast(Tensor(np.ones(2)), 1)
    with pytest.raises(ValueError, match="AlltoAll: split_count must equal the group's size 1"):
        AlltoAll(Tensor(np.ones((2, 2))), 2, 0, 0)
    with pytest.raises(RuntimeError, match="unknown communication group 'nope'"):
        AllReduce(Tensor(np.ones(2)), "sum", "nope")
    with pytest.raises(ValueError, match="Send: dest_rank must be a rank"):
        Send(Tensor(np.ones(2)), 0, 3)
    with pytest.raises(TypeError, match="Receive: dtype must be a number dtype"):
        Receive(0, 0, [2], "float32")


def test_send_to_self_waits_for_its_receive():
    Send(Tensor(np.array([1.0, 2.0])), 5, 0)
    got = Receive(5, 0, [2], mstype.float64)
    np.testing.assert_array_equal(got.asnumpy(), [1.0, 2.0])
    with pytest.raises(RuntimeError, match="nothing was sent with sr_tag 5"):
        Receive(5, 0, [2], mstype.float64)


def test_primitive_classes_through_the_registry():
    from ms_ops import functional as F

    x = Tensor(np.ones((2, 2), np.float32))
    assert F.AllReduce(F.ReduceOp.MAX)(x).shape == (2, 2)
    assert F.AllGather()(x).shape == (2, 2)
    assert F.Broadcast(0)(x).shape == (2, 2)
