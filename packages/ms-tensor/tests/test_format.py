"""repr/str against the exact text MindSpore 2.10 (CPU) prints for the same tensors."""

import numpy as np
import pytest

import ms_tensor as mt
from ms_tensor import Tensor

_ar = np.arange

REPR = [
    (Tensor(np.array([1.0, 2.0], np.float32)),
     "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])"),
    (Tensor([1, 2]), "Tensor(shape=[2], dtype=Int64, value= [1, 2])"),
    (Tensor(_ar(6, dtype=np.float32).reshape(2, 3)),
     "Tensor(shape=[2, 3], dtype=Float32, value=\n"
     "[[ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00],\n"
     " [ 3.00000000e+00,  4.00000000e+00,  5.00000000e+00]])"),
    (Tensor(3.5), "Tensor(shape=[], dtype=Float32, value= 3.5)"),
    (Tensor(2.0), "Tensor(shape=[], dtype=Float32, value= 2)"),
    (Tensor(0.1), "Tensor(shape=[], dtype=Float32, value= 0.1)"),
    (Tensor(1e10), "Tensor(shape=[], dtype=Float32, value= 1e+10)"),
    (Tensor(3.14159265), "Tensor(shape=[], dtype=Float32, value= 3.14159)"),
    (Tensor(np.float16(0.1)), "Tensor(shape=[], dtype=Float16, value= 0.0999756)"),
    (Tensor(np.float64(2.0)), "Tensor(shape=[], dtype=Float64, value= 2)"),
    (Tensor(float("nan")), "Tensor(shape=[], dtype=Float32, value= nan)"),
    (Tensor(-3), "Tensor(shape=[], dtype=Int64, value= -3)"),
    (Tensor(True), "Tensor(shape=[], dtype=Bool, value= True)"),
    (Tensor(np.complex64(1 + 2j)), "Tensor(shape=[], dtype=Complex64, value= 1+2j)"),
    (Tensor([True, False]), "Tensor(shape=[2], dtype=Bool, value= [ True, False])"),
    (Tensor(np.array([1.5], np.float16)), "Tensor(shape=[1], dtype=Float16, value= [ 1.5000e+00])"),
    (Tensor(np.array([0.1, 1000.0, -3.0], np.float16)),
     "Tensor(shape=[3], dtype=Float16, value= [ 9.9976e-02,  1.0000e+03, -3.0000e+00])"),
    (Tensor(np.array([np.nan, np.inf, -np.inf], np.float32)),
     "Tensor(shape=[3], dtype=Float32, value= "
     "[            nan,             inf,            -inf])"),
    (Tensor(np.array([1, -2], np.int8)), "Tensor(shape=[2], dtype=Int8, value= [ 1, -2])"),
    (Tensor(np.array([[1, 200]], np.uint8)),
     "Tensor(shape=[1, 2], dtype=UInt8, value=\n[[  1, 200]])"),
    (Tensor([]), "Tensor(shape=[0], dtype=Float32, value= )"),
    (Tensor(np.zeros((0, 3), np.float32)), "Tensor(shape=[0, 3], dtype=Float32, value=\n)"),
    (Tensor(_ar(8, dtype=np.float32).reshape(2, 2, 2)),
     "Tensor(shape=[2, 2, 2], dtype=Float32, value=\n"
     "[[[ 0.00000000e+00,  1.00000000e+00],\n  [ 2.00000000e+00,  3.00000000e+00]],\n"
     " [[ 4.00000000e+00,  5.00000000e+00],\n  [ 6.00000000e+00,  7.00000000e+00]]])"),
    (Tensor(_ar(4, dtype=np.int32).reshape(2, 1, 2, 1)),
     "Tensor(shape=[2, 1, 2, 1], dtype=Int32, value=\n[[[[0],\n   [1]]],\n [[[2],\n   [3]]]])"),
    # a long vector is elided past 1000 elements ...
    (Tensor(_ar(2000, dtype=np.float32)),
     "Tensor(shape=[2000], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  "
     "2.00000000e+00 ...  1.99700000e+03,  1.99800000e+03,  1.99900000e+03])"),
    (Tensor(_ar(2000)),
     "Tensor(shape=[2000], dtype=Int64, value= [   0,    1,    2 ... 1997, 1998, 1999])"),
    # ... but any axis longer than 6 of a matrix is elided
    (Tensor(_ar(14, dtype=np.int32).reshape(7, 2)),
     "Tensor(shape=[7, 2], dtype=Int32, value=\n[[ 0,  1],\n [ 2,  3],\n [ 4,  5],\n ...\n"
     " [ 8,  9],\n [10, 11],\n [12, 13]])"),
    (Tensor(_ar(14, dtype=np.int32).reshape(2, 7)),
     "Tensor(shape=[2, 7], dtype=Int32, value=\n[[ 0,  1,  2 ...  4,  5,  6],\n"
     " [ 7,  8,  9 ... 11, 12, 13]])"),
    (Tensor(_ar(36, dtype=np.int32).reshape(6, 6)),
     "Tensor(shape=[6, 6], dtype=Int32, value=\n[[ 0,  1,  2,  3,  4,  5],\n"
     " [ 6,  7,  8,  9, 10, 11],\n [12, 13, 14, 15, 16, 17],\n [18, 19, 20, 21, 22, 23],\n"
     " [24, 25, 26, 27, 28, 29],\n [30, 31, 32, 33, 34, 35]])"),
    (Tensor(_ar(8, dtype=np.int32).reshape(8, 1, 1)),
     "Tensor(shape=[8, 1, 1], dtype=Int32, value=\n[[[0]],\n [[1]],\n [[2]],\n ...\n"
     " [[5]],\n [[6]],\n [[7]]])"),
    # vectors break lines after 12 floats or bools, or 24 other elements
    (Tensor(_ar(13, dtype=np.float32)),
     "Tensor(shape=[13], dtype=Float32, value= [" + ", ".join(
         f" {v:.8e}" for v in range(12)) + ", \n  1.20000000e+01])"),
    (Tensor(_ar(25, dtype=np.int8)),
     "Tensor(shape=[25], dtype=Int8, value= [" + ", ".join(f"{v:2d}" for v in range(24))
     + ", \n 24])"),
    (Tensor(_ar(24, dtype=np.int32)),
     "Tensor(shape=[24], dtype=Int32, value= [" + ", ".join(f"{v:2d}" for v in range(24))
     + "\n ])"),
    (Tensor(_ar(14) % 2 == 0),
     "Tensor(shape=[14], dtype=Bool, value= [" + ", ".join([" True, False"] * 6)
     + ", \n  True, False])"),
    (Tensor(np.array([1.5, 2.0], np.float32), mt.bfloat16),
     "Tensor(shape=[2], dtype=BFloat16, value= [1.5,   2])"),
    (Tensor(np.array([0.1, 100.0, -3.0], np.float32), mt.bfloat16),
     "Tensor(shape=[3], dtype=BFloat16, value= [0.100098,      100,       -3])"),
    (Tensor(np.array([[0.5, 1.0], [2.0, 3.0]], np.float32), mt.bfloat16),
     "Tensor(shape=[2, 2], dtype=BFloat16, value=\n[[0.5,   1],\n [  2,   3]])"),
    (Tensor(np.array([[1.5 - 2j, 0j], [100 + 1j, -1 - 1j]], np.complex64)),
     "Tensor(shape=[2, 2], dtype=Complex64, value=\n[[1.5-2j, 0+0j],\n [100+1j, -1-1j]])"),
]


@pytest.mark.parametrize("t,text", REPR, ids=lambda v: v.split(", value")[0][7:] if isinstance(
    v, str) else "")
def test_repr_matches_mindspore(t, text):
    assert repr(t) == text


STR = [
    (Tensor(np.array([1.0, 2.0], np.float32)), "[1. 2.]"),
    (Tensor(np.array([1.5, -2.25])), "[ 1.5  -2.25]"),
    (Tensor([True, False]), "[ True False]"),
    (Tensor(3.5), "3.5"),
    (Tensor(0.1), "0.1"),
    (Tensor(2), "2"),
    (Tensor(np.zeros((0, 3), np.float32)), "[]"),
    (Tensor(_ar(8, dtype=np.float32).reshape(2, 2, 2)),
     "[[[0. 1.]\n  [2. 3.]]\n\n [[4. 5.]\n  [6. 7.]]]"),
    (Tensor(np.array([1.5, 2.0], np.float32), mt.bfloat16), "[1.500000 2.000000]"),
    (Tensor(np.float32(1.5), mt.bfloat16), "1.500000"),
]


@pytest.mark.parametrize("t,text", STR, ids=lambda v: repr(v) if isinstance(v, str) else "")
def test_str_matches_mindspore(t, text):
    assert str(t) == text


def test_large_tensor_repr_stays_short():
    text = repr(Tensor(np.zeros((1000, 1000), np.float32)))
    assert text.count("\n") == 7 and len(text) < 1000  # header, 3 rows, "...", 3 rows
