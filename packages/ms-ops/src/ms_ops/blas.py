"""Matrix products through MKL when the ``mkl`` package is installed.

numpy multiplies matrices with the OpenBLAS it bundles. On the shapes of a training step
(batch 64 against 512-784 features) MKL, the BLAS PyTorch uses, is faster than OpenBLAS
(docs/benchmarks.md has the numbers), and a step of an MLP is
mostly its matrix products. So when ``pip install mkl`` (the ``ms-ops[mkl]`` extra) has
put ``libmkl_rt`` in the environment, ``MatMul`` calls its ``cblas_?gemm`` directly (a
Cython call through the function pointer, transposes passed as flags, no copies of
transposed views); otherwise numpy's own product is used and nothing else changes.

MKL is set up through its API, before its first product, and the environment is left as
it was: the GNU threading layer (``MKL_Set_Threading_Layer``: its threads are libgomp's,
the same OpenMP runtime ms-ops' kernels use, so the two never keep two spinning thread
pools), its thread count from ``ms_ops.kernels.threads`` (``MKL_Set_Num_Threads``,
following ``set_context(runtime_num_threads=...)``), and strict conditional numerical
reproducibility (``MKL_CBWR_Set(AUTO | STRICT)``: results independent of memory alignment
and thread count, so a planned buffer and a fresh array give the same bits). Where the user
exported ``MKL_THREADING_LAYER`` or ``MKL_CBWR``, MKL reads those and they win.
``MS_OPS_BLAS=numpy`` turns MKL off.
"""

from __future__ import annotations

import ctypes
import os

import numpy as np

__all__ = ["backend", "matmul", "set_num_threads", "set_local_num_threads"]

SMALL = 32 * 32 * 32  # m*n*k below this: numpy's call is cheaper than reaching MKL
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_THREADING_GNU = 3  # mkl_service.h: MKL_THREADING_GNU
_CBWR_AUTO_STRICT = 2 | 0x10000  # MKL_CBWR_AUTO | MKL_CBWR_STRICT
_state: dict = {}


def _find_mkl() -> str | None:
    from importlib import metadata  # not at import: it costs ms-ops' import time

    try:
        files = metadata.files("mkl") or ()
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name.startswith("libmkl_rt.so"):
            path = f.locate()
            if os.path.exists(path):
                return str(path)
    return None


def _load():
    """The Cython ``gemm`` bound to MKL, or None (numpy is used)."""
    if os.environ.get("MS_OPS_BLAS", "mkl").lower() == "numpy":
        return None
    path = _find_mkl()
    if path is None:
        return None
    lib = ctypes.CDLL(path)
    from ms_ops.kernels import _gemm, threads  # loads libgomp before MKL's GNU layer needs it

    if "MKL_THREADING_LAYER" not in os.environ:
        lib.MKL_Set_Threading_Layer(_THREADING_GNU)
    if "MKL_CBWR" not in os.environ:
        lib.MKL_CBWR_Set(_CBWR_AUTO_STRICT)
    _state["lib"] = lib
    set_num_threads(threads.num_threads())

    addr = ctypes.cast
    _gemm.bind(addr(lib.cblas_sgemm, ctypes.c_void_p).value,
               addr(lib.cblas_dgemm, ctypes.c_void_p).value)
    _state["path"] = path
    return _gemm.gemm


def _gemm():
    if "gemm" not in _state:
        _state["gemm"] = _load()
    return _state["gemm"]


def set_num_threads(n: int) -> None:
    """MKL's thread count (``ms_ops.kernels.threads`` calls it when the policy changes)."""
    lib = _state.get("lib")
    if lib is not None:
        lib.MKL_Set_Num_Threads(n)


def set_local_num_threads(n: int) -> None:
    """MKL's count for the calling thread only (0: back to the global count), where MKL is
    loaded (``ms_ops.kernels.threads.scoped`` calls it)."""
    lib = _state.get("lib")
    if lib is not None:
        lib.MKL_Set_Num_Threads_Local(n)


def backend() -> str:
    """``"mkl (<path>)"`` or ``"numpy"``: what ``MatMul`` multiplies with."""
    return f"mkl ({_state['path']})" if _gemm() is not None else "numpy"


def _operand(a, trans: bool):
    """``(C-contiguous array, transpose flag)`` standing for ``a`` (transposed if asked):
    a transposed view is its C-contiguous base with the flag flipped, not a copy."""
    if a.flags.c_contiguous:
        return a, trans
    if a.flags.f_contiguous:
        return a.T, not trans
    return np.ascontiguousarray(a), trans


def matmul(x, y, transpose_a=False, transpose_b=False, out=None, accumulate=False):
    """``op(x) @ op(y)`` for 2-D arrays through MKL (added to ``out``'s values with
    ``accumulate``), or None where numpy should do it (no MKL, not one float dtype,
    small, or an ``out`` that is not a C-contiguous fit)."""
    gemm = _state.get("gemm", False)
    if gemm is False:
        gemm = _gemm()
    if gemm is None or x.dtype != y.dtype or x.dtype not in _FLOATS or x.ndim != 2 \
            or y.ndim != 2:
        return None
    m, k = (x.shape[1], x.shape[0]) if transpose_a else x.shape
    k2, n = (y.shape[1], y.shape[0]) if transpose_b else y.shape
    if k != k2 or m * n * k < SMALL:
        return None
    if out is None:
        out = np.empty((m, n), x.dtype)
    elif out.shape != (m, n) or out.dtype != x.dtype or not out.flags.c_contiguous:
        return None
    a, ta = _operand(x, transpose_a)
    b, tb = _operand(y, transpose_b)
    return gemm(a, ta, b, tb, out, 1.0 if accumulate else 0.0)
