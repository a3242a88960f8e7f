"""microspore's distributed training on MPI: communication, collectives as operators,
data parallel training and the launcher (``microspore run``).

Names load on first use (``import ms_parallel`` imports neither mpi4py nor ms-nn):

- ``ms_parallel.management``: ``init``, ``get_rank``, ``get_group_size``, groups.
- ``AllReduce``, ``AllGather``, ``ReduceScatter``, ``Broadcast``, ``AlltoAll``, ``Send``,
  ``Receive``: the collectives (OpDefs; ``ops.AllReduce()`` is the Primitive class).
- ``ms_parallel.comm_func``: their functional forms (``all_reduce``, ``broadcast``, ...).
- ``set_auto_parallel_context`` & co., ``ParallelMode``, ``DistributedGradReducer``.
"""

from importlib import import_module

__version__ = "0.1.0"

_NAMES = {
    **dict.fromkeys(("AllReduce", "AllGather", "ReduceScatter", "Broadcast", "ReduceOp"),
                    "ms_parallel.reduce_ops"),
    **dict.fromkeys(("AlltoAll", "Send", "Receive"), "ms_parallel.p2p_ops"),
    **dict.fromkeys(("init", "release", "get_rank", "get_group_size", "get_local_rank",
                     "get_local_rank_size", "create_group", "destroy_group", "GlobalComm"),
                    "ms_parallel.management"),
    **dict.fromkeys(("set_auto_parallel_context", "get_auto_parallel_context",
                     "reset_auto_parallel_context", "ParallelMode"), "ms_parallel.context"),
    "DistributedGradReducer": "ms_parallel.grad_reducer",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    where = _NAMES.get(name)
    if where is None:
        raise AttributeError(f"module 'ms_parallel' has no attribute {name!r}")
    value = getattr(import_module(where), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_NAMES))
