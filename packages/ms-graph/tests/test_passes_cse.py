"""Common-subexpression elimination alone, on hand-built graphs."""

import importlib.util
import pathlib

import numpy as np
from ms_graph.passes import cse, dce

from ms_ops.defs import arithmetic, math_unary, optim, random, reduction
from ms_tensor import Parameter

_spec = importlib.util.spec_from_file_location(
    "_passes_util", pathlib.Path(__file__).with_name("_passes_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
Builder, run, names = _util.Builder, _util.run, _util.names


def test_duplicates_merge_and_chains_follow():
    b = Builder()
    x, y = b.input((2, 3)), b.input((2, 3))
    m1, m2 = b(arithmetic.Mul, x, y), b(arithmetic.Mul, x, y)
    e1, e2 = b(math_unary.Exp, m1), b(math_unary.Exp, m2)  # equal once m2 -> m1
    g = b.output(b(arithmetic.Add, e1, e2))
    xv = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    before = run(g, xv, xv + 1)
    cse.run(g)
    assert names(g) == ["Mul", "Exp", "Add"]
    assert g.nodes[-1].args[0] is g.nodes[-1].args[1]
    np.testing.assert_array_equal(run(g, xv, xv + 1)[0], before[0])


def test_different_statics_attrs_and_scalars_stay_apart():
    b = Builder()
    x = b.input((2, 3))
    s1 = b(reduction.ReduceSum, x, 0)
    s2 = b(reduction.ReduceSum, x, 1)
    s3 = b(reduction.ReduceSum, x, 1, keep_dims=True)
    a1 = b(arithmetic.Mul, x, 0.0)
    a2 = b(arithmetic.Mul, x, -0.0)  # 0.0 == -0.0, but the results differ in sign
    a3 = b(arithmetic.Mul, x, 0)  # an int weak scalar: a different argument again
    g = b.output(s1, s2, s3, a1, a2, a3)
    cse.run(g)
    assert len(g.nodes) == 6


def test_equal_constants_merge():
    b = Builder()
    x = b.input((3,))
    c1, c2 = b.const(np.array([1, 2, 3], np.float32)), b.const(np.array([1, 2, 3], np.float32))
    g = b.output(b(arithmetic.Add, b(arithmetic.Mul, x, c1), b(arithmetic.Mul, x, c2)))
    cse.run(g)
    dce.run(g)
    assert names(g) == ["Mul", "Add"]


def test_reads_around_an_update_do_not_merge():
    p = Parameter(np.ones(3, np.float32), name="w")
    b = Builder()
    x = b.input((3,))
    w = b.param(p)
    before_update = b(arithmetic.Mul, w, 2.0)
    b(optim.ApplyGradientDescent, w, 1.0, x)
    after_update = b(arithmetic.Mul, w, 2.0)
    g = b.output(before_update, after_update)
    cse.run(g)
    assert names(g) == ["Mul", "ApplyGradientDescent", "Mul"]
    out = run(g, np.ones(3, np.float32))
    np.testing.assert_array_equal(out[0], [2, 2, 2])
    np.testing.assert_array_equal(out[1], [0, 0, 0])


def test_random_nodes_never_merge():
    b = Builder()
    r1 = b(random.StandardNormal, (4,), seed=3, seed2=4)
    r2 = b(random.StandardNormal, (4,), seed=3, seed2=4)
    g = b.output(r1, r2)
    cse.run(g)
    assert len(g.nodes) == 2
