"""``mindspore.ops.communication``: in-place functional collectives (``all_reduce(t)``
overwrites ``t``), from ms-parallel."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), (
    "ms_parallel.comm_func", "ms_parallel.dist_func", "ms_parallel.process_group",
    "ms_parallel.object_collectives"))
