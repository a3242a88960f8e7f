"""Functional loops, Print/Assert/tensordump/FloatStatus and cond, against Python and
numpy."""

import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Tensor

X = np.array([1.0, 2.0], np.float32)


def test_loops_equal_python_loops():
    out = ops.WhileLoop()(lambda v: v.sum() < 20, lambda v: v * 2, Tensor(X))
    np.testing.assert_array_equal(out.asnumpy(), [8, 16])
    out = ops.ForiLoop()(0, 3, lambda i, v: v + i, Tensor(X))
    np.testing.assert_array_equal(out.asnumpy(), X + 3)
    carry, ys = ops.Scan()(lambda c, e: (c + e, c * e), Tensor(np.float32(0.0)), Tensor(X))
    assert carry.asnumpy() == 3 and ys.asnumpy().tolist() == [0.0, 2.0]
    with pytest.raises(ValueError, match="WhileLoop: the condition must be a single value"):
        ops.WhileLoop()(lambda v: v < 5, lambda v: v + 1, Tensor(X))


def test_print_assert_dump_status(tmp_path, capsys):
    ops.Print()("x:", Tensor(X))
    assert "x:" in capsys.readouterr().out
    ops.Assert()(Tensor(np.array([True])), [Tensor(X)])
    with pytest.raises(AssertionError, match="Assert failed"):
        ops.Assert(summarize=1)(Tensor(np.array([False])), [Tensor(X)])
    ops.tensordump(tmp_path / "t", Tensor(X))
    np.testing.assert_array_equal(np.load(tmp_path / "t.npy"), X)
    assert ops.FloatStatus()(Tensor(np.array([1.0, np.inf], np.float32))).asnumpy()[0] == 1.0
    assert ops.FloatStatus()(Tensor(X)).asnumpy()[0] == 0.0

    @ops.add_flags(is_loop=True)
    def f():
        return 1

    assert f.is_loop is True


def test_condition_number():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    for p in (None, 1, "fro", np.inf):
        np.testing.assert_allclose(ops.cond(Tensor(a), p).asnumpy(), np.linalg.cond(a, p),
                                   rtol=1e-6)
