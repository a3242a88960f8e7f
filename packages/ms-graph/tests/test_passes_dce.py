"""Dead-code elimination alone, on hand-built graphs."""

import importlib.util
import pathlib

import numpy as np
from ms_graph.passes import dce

from ms_ops.defs import arithmetic, math_unary, optim, random
from ms_tensor import Parameter

_spec = importlib.util.spec_from_file_location(
    "_passes_util", pathlib.Path(__file__).with_name("_passes_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
Builder, run, names = _util.Builder, _util.run, _util.names


def test_unused_nodes_go_and_used_ones_stay():
    b = Builder()
    x = b.input((3,))
    used = b(math_unary.Exp, x)
    dead = b(arithmetic.Mul, x, x)
    b(arithmetic.Add, dead, used)  # dead too: nothing reads it
    g = b.output(b(arithmetic.Neg, used))
    xv = np.array([0.5, -1.0, 2.0], np.float32)
    before = run(g, xv)
    dce.run(g)
    assert names(g) == ["Exp", "Neg"]
    np.testing.assert_array_equal(run(g, xv)[0], before[0])


def test_side_effects_stay_although_unread():
    p = Parameter(np.ones(3, np.float32), name="w")
    b = Builder()
    x = b.input((3,))
    w = b.param(p)
    b(optim.ApplyGradientDescent, w, 0.5, x)  # nobody reads the result: still an update
    b(random.StandardNormal, (2,), seed=1, seed2=2)  # advancing a generator is an effect
    g = b.output(b(arithmetic.Neg, x))
    dce.run(g)
    assert names(g) == ["ApplyGradientDescent", "StandardNormal", "Neg"]
    run(g, np.full(3, 2.0, np.float32))
    np.testing.assert_array_equal(p.asnumpy(), np.zeros(3, np.float32))


def test_graph_without_outputs_keeps_only_effects():
    b = Builder()
    x = b.input((2,))
    b(math_unary.Exp, x)
    g = b.output()
    dce.run(g)
    assert g.nodes == []
