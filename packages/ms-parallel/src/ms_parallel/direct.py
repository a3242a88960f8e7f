"""The C path of the eager collectives (``kernels/_mpi_direct``), where it can be used.

An eager collective's fixed cost at 1 KB is mostly around the MPI call: Python checks,
mpi4py parsing the buffers, wrapping the result. ``kernel()`` is the compiled module,
bound to the functions of the MPI library mpi4py loaded (found through mpi4py's own
extension module, whose symbols resolve against that library), or None where it cannot
be used: not built (a source install without a compiler; ``pip`` builds it optionally),
a platform without ``dlopen``, or an MPI whose handles are not MPICH's ABI (Open MPI's
are pointers). Then every collective takes the mpi4py path, which gives the same values.
"""

from __future__ import annotations

import ctypes
import os

import numpy as np

__all__ = ["kernel", "handle", "MPICH_COMM_WORLD", "DTYPES"]

MPICH_COMM_WORLD = 0x44000000  # MPI_COMM_WORLD in MPICH's mpi.h (its ABI's handles are ints)
# The operators' dtypes that MPI reads as they are (not 16-bit floats: they travel widened,
# on the general path); numpy type codes.
DTYPES = "bhilqBHILQfd"
_FUNCTIONS = ("MPI_Allreduce", "MPI_Allgather", "MPI_Bcast", "MPI_Reduce_scatter_block")
_bound: list = []  # [module or None] once decided


def kernel():
    """``ms_parallel.kernels._mpi_direct``, bound; None where the mpi4py path must serve."""
    if not _bound:
        _bound.append(_bind())
    return _bound[0]


def handle(obj) -> int:
    """An mpi4py object's MPICH handle as the C ``int`` it is: mpi4py gives it as an
    unsigned number, sign-extended to 64 bits for a created communicator's (0x84000000
    and up, negative as an int)."""
    h = obj.handle & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _bind():
    try:
        from ms_parallel.kernels import _mpi_direct
    except ImportError:
        return None
    from mpi4py import MPI

    if MPI.COMM_WORLD.handle != MPICH_COMM_WORLD or not hasattr(os, "RTLD_NOLOAD"):
        return None
    try:  # mpi4py's extension is loaded: this finds it, and MPI through its dependencies
        lib = ctypes.CDLL(MPI.__file__, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        addresses = [ctypes.cast(getattr(lib, f), ctypes.c_void_p).value for f in _FUNCTIONS]
    except (OSError, AttributeError):
        return None
    types = {np.dtype(c).num: handle(MPI.Datatype.fromcode(c)) for c in DTYPES}
    _mpi_direct.bind(*addresses, int(MPI.IN_PLACE), types, MPI.Exception)
    return _mpi_direct
