"""Inlining of "Call" nodes alone, on hand-built graphs."""

import importlib.util
import pathlib

import numpy as np
import pytest
from ms_graph.ir import Node
from ms_graph.passes import inline

from ms_ops.defs import arithmetic, math_unary
from ms_tensor import Parameter

_spec = importlib.util.spec_from_file_location(
    "_passes_util", pathlib.Path(__file__).with_name("_passes_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
Builder, run, names = _util.Builder, _util.run, _util.names


def _callee(param=None):
    """f(a, b) = (exp(a) * b [* w], a)  -- the second output passes an input through."""
    b = Builder()
    a, c = b.input((3,)), b.input((3,))
    y = b(arithmetic.Mul, b(math_unary.Exp, a), c)
    if param is not None:
        y = b(arithmetic.Mul, y, b.param(param))
    return b.output(y, a)


def _call(b, sub, *args):
    node = Node("Call", args, {}, (), (sub,))
    for v in sub.outputs:
        node.add_output(v.spec)
    b.graph.nodes.append(node)
    return node.outputs


def test_call_is_spliced_and_values_agree():
    sub = _callee()
    b = Builder()
    x, z = b.input((3,)), b.input((3,))
    y, passed = _call(b, sub, x, z)
    g = b.output(b(arithmetic.Add, y, passed))
    xv, zv = np.array([0.0, 1.0, -1.0], np.float32), np.array([2.0, 3.0, 4.0], np.float32)
    before = run(g, xv, zv)[0]
    inline.run(g)
    assert names(g) == ["Exp", "Mul", "Add"]
    assert g.nodes[-1].args[1] is x  # the pass-through output is the argument itself
    np.testing.assert_allclose(run(g, xv, zv)[0], before, rtol=1e-6)
    np.testing.assert_allclose(before, np.exp(xv) * zv + xv, rtol=1e-6)


def test_two_calls_get_their_own_copies_and_share_parameters():
    p = Parameter(np.full(3, 2.0, np.float32), name="w")
    sub = _callee(p)
    b = Builder()
    x = b.input((3,))
    y1, _ = _call(b, sub, x, x)
    y2, _ = _call(b, sub, y1, x)
    g = b.output(y2)
    xv = np.array([0.1, 0.2, 0.3], np.float32)
    before = run(g, xv)[0]
    inline.run(g)
    assert names(g) == ["Exp", "Mul", "Mul"] * 2
    assert len({id(o) for n in g.nodes for o in n.outputs}) == 6
    assert len(g.params) == 1 and g.params[0][1] is p
    np.testing.assert_allclose(run(g, xv)[0], before, rtol=1e-6)


def test_nested_calls_are_inlined():
    inner = _callee()
    b = Builder()
    a = b.input((3,))
    y, _ = _call(b, inner, a, a)
    outer = b.output(b(arithmetic.Neg, y))
    b = Builder()
    x = b.input((3,))
    (r,) = _call(b, outer, x)
    g = b.output(r)
    xv = np.array([1.0, 2.0, 3.0], np.float32)
    before = run(g, xv)[0]
    inline.run(g)
    assert names(g) == ["Exp", "Mul", "Neg"]
    np.testing.assert_allclose(run(g, xv)[0], before, rtol=1e-6)


@pytest.mark.parametrize("bad", ["arity", "python_arg"])
def test_malformed_calls_stay(bad):
    sub = _callee()
    b = Builder()
    x = b.input((3,))
    args = (x,) if bad == "arity" else (x, 2.0)
    outs = _call(b, sub, *args)
    g = b.output(*outs)
    inline.run(g)
    assert names(g) == ["Call"]
