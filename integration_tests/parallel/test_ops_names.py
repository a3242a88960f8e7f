"""MindSpore 2.10's communication names reach users where MindSpore has them:
``mindspore.ops`` (Primitive classes and torch-style functions), ``mindspore.ops.
communication`` and ``mindspore.communication.comm_func``, and run (rank 0 of 1)."""

import numpy as np
import pytest

import microspore as ms
import microspore.communication.comm_func as comm_func
import microspore.ops as ops

FUNCTIONS = [
    "all_gather", "reduce", "reduce_scatter", "all_to_all", "gather_into_tensor",
    "scatter_tensor", "all_gather_into_tensor_uneven", "reduce_scatter_tensor_uneven",
    "all_to_all_v_c", "P2POp", "batch_isend_irecv", "all_gather_object", "gather_object",
    "broadcast_object_list", "scatter_object_list", "send_object_list", "recv_object_list",
    "init_process_group", "destroy_process_group", "new_group", "get_backend",
    "get_global_rank", "get_group_rank", "get_process_group_ranks", "is_available"]
PRIMITIVES = ["Reduce", "CollectiveGather", "CollectiveScatter", "Barrier", "AllGatherV",
              "ReduceScatterV", "AlltoAllVC"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_in_ops_and_ops_communication(name):
    assert getattr(ops, name) is getattr(ops.communication, name)
    assert callable(getattr(ops, name))


def test_primitives_run():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for name in PRIMITIVES[:3]:
        assert issubclass(getattr(ops, name), ops.Primitive)
    np.testing.assert_array_equal(ops.Reduce(0)(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.CollectiveGather(0)(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.CollectiveScatter()(x).asnumpy(), x.asnumpy())
    assert ops.Barrier()().shape == (1,)
    flat = ms.Tensor(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(ops.AllGatherV()(flat, [4]).asnumpy(), flat.asnumpy())
    np.testing.assert_array_equal(ops.ReduceScatterV()(flat, [4]).asnumpy(), flat.asnumpy())
    np.testing.assert_array_equal(ops.AlltoAllVC()(flat, [4]).asnumpy(), flat.asnumpy())
    (got,) = ops.NeighborExchange([0], [0], ([4],), ([4],), ms.float32)((flat,))
    np.testing.assert_array_equal(got.asnumpy(), flat.asnumpy())
    sent, got = ops.BatchISendIRecv(("isend", "irecv"), [0, 0], [(4,)], (ms.float32,))((flat,))
    assert sent.shape == () and float(sent.asnumpy()) == 0.0
    np.testing.assert_array_equal(got.asnumpy(), flat.asnumpy())


def test_comm_func_spellings_return_results():
    x = ms.Tensor(np.ones((2, 2), np.float32))
    for fn in (comm_func.reduce(x, 0), comm_func.gather_into_tensor(x),
               comm_func.scatter_tensor(x)):
        np.testing.assert_array_equal(fn.asnumpy(), x.asnumpy())
    out = ms.Tensor(np.zeros(4, np.float32))
    comm_func.all_to_all_v_c(out, ms.Tensor(np.ones(4, np.float32)), [4])
    np.testing.assert_array_equal(out.asnumpy(), np.ones(4))
