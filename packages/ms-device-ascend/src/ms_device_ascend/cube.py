"""Cube operators under Ascend's precision modes: fp16 inputs, fp32 accumulation.

An Ascend AI Core multiplies matrices in its Cube unit, which reads float16 operands and
accumulates in float32. MindSpore's ``ascend_config={"precision_mode": ...}`` decides
what a float32 MatMul/Conv becomes there (MindSpore's ``precision_mode`` page and CANN's
``--precision_mode`` reference); the emulation computes exactly that:

=========================  ==============================  =========================
precision_mode             float32 Cube operands           float32 Cube result
=========================  ==============================  =========================
``force_fp16``             rounded to float16              rounded to float16
``allow_fp32_to_fp16``     rounded to float16              float32 (the accumulator)
``allow_mix_precision``    rounded to float16              rounded to float16
``force_fp32``             rounded to float16              float32 (CANN: Cube
                                                           operators prefer fp16 in,
                                                           fp32 out)
``must_keep_origin_dtype`` float32                         float32 (as Atlas A2 chips,
                                                           which have fp32 Cube paths)
=========================  ==============================  =========================

``allow_mix_precision`` puts the Cube operators, all on the mixed-precision allow list,
in float16 and casts back; the other operators keep float32, as here. Unset, the mode is
``allow_fp32_to_fp16``, MindSpore's default for Atlas training series (Ascend 910).
The products are float32 GEMMs on the CPU (numpy), so a float16 operand pair is
multiplied exactly and summed in float32 as the Cube does; the summation order is the
CPU's, not the chip's. float16 operands compute the same way with a float16 result;
other dtypes run the CPU kernel unchanged.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from ms_tensor.context import get_context

__all__ = ["CUBE_OPS", "DEFAULT_MODE", "precision_mode", "rounding", "emulated_kernel",
           "matmul_kernel", "conv2d_kernel"]

# The Cube operators microspore has (Conv2DTranspose is Conv2DBackpropInput's alias).
CUBE_OPS = ("MatMul", "BatchMatMul", "Dense", "Conv2D", "Conv2DBackpropInput",
            "Conv2DBackpropFilter")
DEFAULT_MODE = "allow_fp32_to_fp16"
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
# mode -> (round float32 operands to float16, round the float32 result to float16)
_ROUNDING = {"force_fp16": (True, True), "allow_fp32_to_fp16": (True, False),
             "allow_mix_precision": (True, True), "must_keep_origin_dtype": (False, False),
             "force_fp32": (True, False)}


def precision_mode() -> str:
    """The context's ``ascend_config["precision_mode"]``, or the default."""
    config = get_context("ascend_config") or {}
    return config.get("precision_mode", DEFAULT_MODE)


def rounding(mode: str | None = None) -> tuple[bool, bool]:
    """(operands to float16, result to float16) for a float32 Cube operator."""
    return _ROUNDING[precision_mode() if mode is None else mode]


_announced: list = []


def _announce() -> None:
    """Say once per process that these numbers come from the emulation."""
    from ms_device_ascend.backend import EmulationWarning

    _announced.append(True)
    warnings.warn("device_target='Ascend' runs microspore's Ascend numerics EMULATION on "
                  "the CPU (ms-device-ascend): Cube operators compute as an AI Core would "
                  f"under precision_mode {precision_mode()!r}, but no Ascend hardware is "
                  "used", EmulationWarning, stacklevel=2)


def _fp16(a):
    return a.astype(_F16).astype(_F32)


def emulated_kernel(cpu_kernel, n_operands: int = 2, cube=None):
    """The Ascend kernel of a Cube operator. Its first ``n_operands`` arrays are the
    Cube's operands (the bias of Dense is added by the Vector unit, in float32); float
    operands are multiplied by ``cube`` (default: the CPU kernel, in float32) after the
    precision mode's rounding; any other dtype runs the CPU kernel unchanged."""
    cube = cpu_kernel if cube is None else cube

    @functools.wraps(cpu_kernel)
    def kernel(*arrays, **kwargs):
        if not _announced:
            _announce()
        floats = [a.dtype for a in arrays[:n_operands] if isinstance(a, np.ndarray)]
        if not floats or any(d not in (_F16, _F32) for d in floats):
            return cpu_kernel(*arrays, **kwargs)
        ops_in, result_16 = rounding()
        if _F16 in floats:  # float16 operands: the Cube's own format, float32 accumulation
            ops_in, result_16 = True, True
        if not ops_in:
            return cpu_kernel(*arrays, **kwargs)
        xs = [_fp16(a) if i < n_operands and isinstance(a, np.ndarray) else a
              for i, a in enumerate(arrays)]
        out = cube(*xs, **kwargs)
        dtype = floats[0]
        return out.astype(_F16).astype(dtype) if result_16 else out.astype(dtype, copy=False)

    return kernel


def _matmul(x, y, transpose_a=False, transpose_b=False):
    """numpy's float32 matmul (the reference a user can recompute bit for bit)."""
    if transpose_a:
        x = np.swapaxes(x, -1, -2)
    if transpose_b:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def _conv2d(x, weight, **attrs):
    """Conv2D as numpy's float32 matmul of the weight and the im2col columns, per sample
    and group: ``(Cout/g, Cin/g*kh*kw) @ (Cin/g*kh*kw, oh*ow)``."""
    from ms_ops.defs.nn_conv import conv_geometry, conv_windows, pad_input

    g = conv_geometry(x.shape, weight.shape, **attrs)
    n = x.shape[0]
    cols = conv_windows(pad_input(x, g), g).reshape(n, g.group, -1, g.oh * g.ow)
    w = weight.reshape(g.group, weight.shape[0] // g.group, -1)
    return np.matmul(w, cols).reshape(n, weight.shape[0], g.oh, g.ow)


def conv2d_kernel(cpu_kernel):
    """Conv2D: the Cube product is ``_conv2d`` of the rounded operands."""
    return emulated_kernel(cpu_kernel, cube=_conv2d)


def matmul_kernel(cpu_kernel):
    """MatMul / BatchMatMul: the Cube product is numpy's float32 matmul of the rounded
    operands."""
    return emulated_kernel(cpu_kernel, cube=_matmul)
