"""``mindspore.communication.comm_func``: collectives that return ``(result, handle)``."""

from microspore._lazy import forward

_F = "ms_parallel.comm_func"
_NAMES = {
    "all_reduce": f"{_F}:comm_all_reduce",
    "all_gather_into_tensor": f"{_F}:comm_all_gather_into_tensor",
    "reduce_scatter_tensor": f"{_F}:comm_reduce_scatter_tensor",
    "broadcast": f"{_F}:comm_broadcast",
    "recv": f"{_F}:comm_recv",
    "irecv": f"{_F}:comm_irecv",
    "barrier": _F, "send": _F, "isend": _F, "CommHandle": _F,
    "all_to_all_single_with_output_shape": _F, "all_to_all_with_output_shape": _F,
    "reduce": "ms_parallel.dist_func:comm_reduce",
    "gather_into_tensor": "ms_parallel.dist_func:comm_gather_into_tensor",
    "scatter_tensor": "ms_parallel.dist_func:comm_scatter_tensor",
    "all_to_all_v_c": "ms_parallel.dist_func",
    "ReduceOp": "ms_parallel.reduce_ops",
    "GlobalComm": "ms_parallel.management",
}

__getattr__, __dir__ = forward(__name__, globals(), (), _NAMES)

__all__ = list(_NAMES)
