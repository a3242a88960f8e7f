"""Algebraic simplification alone (plus dce to sweep), on hand-built graphs."""

import importlib.util
import pathlib

import numpy as np
import pytest
from ms_graph.passes import algebraic, dce

from ms_ops.defs import arithmetic, array, optim
from ms_tensor import dtype as mstype

_spec = importlib.util.spec_from_file_location(
    "_passes_util", pathlib.Path(__file__).with_name("_passes_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
Builder, run, names = _util.Builder, _util.run, _util.names

X = np.array([[1.5, -2.0, 0.25], [3.0, -0.5, 4.0]], np.float32)


def _x_then(build):
    b = Builder()
    x = b.input((2, 3))
    return b, x, b.output(build(b, x))


IDENTITIES = {
    "x*1": lambda b, x: b(arithmetic.Mul, x, 1),
    "1*x": lambda b, x: b(arithmetic.Mul, b.const(np.ones(3, np.float32)), x),
    "x+0": lambda b, x: b(arithmetic.Add, x, 0.0),
    "0+x": lambda b, x: b(arithmetic.Add, 0, x),
    "x-0": lambda b, x: b(arithmetic.Sub, x, b.const(np.float32(0))),
    "x/1": lambda b, x: b(arithmetic.Div, x, 1.0),
    "neg(neg x)": lambda b, x: b(arithmetic.Neg, b(arithmetic.Neg, x)),
    "cast to own dtype": lambda b, x: b(array.Cast, x, mstype.float32),
    "identity": lambda b, x: b(array.Identity, x),
    "reshape to own shape": lambda b, x: b(array.Reshape, x, (2, -1)),
    "transpose twice": lambda b, x: b(array.Transpose, b(array.Transpose, x, (1, 0)), (1, 0)),
    "reshape twice back": lambda b, x: b(array.Reshape, b(array.Reshape, x, (6,)), (2, 3)),
}


@pytest.mark.parametrize("name", IDENTITIES)
def test_identity_disappears(name):
    b, x, g = _x_then(IDENTITIES[name])
    algebraic.run(g)
    dce.run(g)
    assert g.nodes == [] and g.outputs[0] is x
    np.testing.assert_array_equal(run(g, X)[0], X)


KEPT = {
    "x*1.0 promotes int": (np.int32, lambda b, x: b(arithmetic.Mul, x, 1.0)),
    "0-x": (np.float32, lambda b, x: b(arithmetic.Sub, 0, x)),
    "x*2": (np.float32, lambda b, x: b(arithmetic.Mul, x, 2)),
    "x*ones broadcasts": (np.float32, lambda b, x: b(arithmetic.Mul, x,
                                                      b.const(np.ones((4, 1, 1), np.float32)))),
    "x*float64 one promotes": (np.float32, lambda b, x: b(arithmetic.Mul, x,
                                                           b.const(np.ones(3)))),
    "cast changes dtype": (np.float32, lambda b, x: b(array.Cast, x, mstype.float64)),
}


@pytest.mark.parametrize("name", KEPT)
def test_non_identity_stays(name):
    dtype, build = KEPT[name]
    b = Builder()
    x = b.input((2, 3), dtype)
    g = b.output(build(b, x))
    before = run(g, X.astype(dtype))[0]
    algebraic.run(g)
    assert len(g.nodes) == 1 and g.outputs[0] is not x
    np.testing.assert_array_equal(run(g, X.astype(dtype))[0], before)


def test_reshape_of_reshape_reads_the_source():
    b = Builder()
    x = b.input((2, 3))
    g = b.output(b(array.Reshape, b(array.Reshape, x, (3, 2)), (6,)))
    algebraic.run(g)
    dce.run(g)
    assert names(g) == ["Reshape"] and g.nodes[0].args[0] is x
    np.testing.assert_array_equal(run(g, X)[0], X.reshape(6))


def test_transposes_compose():
    x3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = Builder()
    x = b.input((2, 3, 4))
    g = b.output(b(array.Transpose, b(array.Transpose, x, (1, 2, 0)), (0, 2, 1)))
    algebraic.run(g)
    dce.run(g)
    assert names(g) == ["Transpose"] and g.nodes[0].args[0] is x
    np.testing.assert_array_equal(run(g, x3)[0], x3.transpose(1, 2, 0).transpose(0, 2, 1))


def test_chain_of_four_negations():
    b = Builder()
    x = b.input((2, 3))
    v = x
    for _ in range(4):
        v = b(arithmetic.Neg, v)
    g = b.output(v)
    algebraic.run(g)
    dce.run(g)
    assert g.nodes == []


def test_value_written_in_place_keeps_its_node():
    b = Builder()
    x = b.input((3,))
    y = b(arithmetic.Mul, x, 1)
    g = b.output(b(optim.ApplyGradientDescent, y, 1.0, b.const(np.ones(3, np.float32))))
    algebraic.run(g)
    assert names(g) == ["Mul", "ApplyGradientDescent"]
    xv = np.full(3, 5.0, np.float32)
    np.testing.assert_array_equal(run(g, xv)[0], [4, 4, 4])
    np.testing.assert_array_equal(xv, [5, 5, 5])


def test_a_copy_taken_before_an_in_place_update_keeps_the_old_values():
    b = Builder()
    x = b.input((3,))
    saved = b(array.Identity, x)
    updated = b(optim.ApplyGradientDescent, x, 1.0, b.const(np.ones(3, np.float32)))
    g = b.output(saved, updated)
    algebraic.run(g)
    assert names(g) == ["Identity", "ApplyGradientDescent"]
    old, new = run(g, np.full(3, 5.0, np.float32))
    np.testing.assert_array_equal(old, [5, 5, 5])
    np.testing.assert_array_equal(new, [4, 4, 4])
