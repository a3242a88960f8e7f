"""Elementwise fusion alone, on hand-built graphs, run through the executor."""

import importlib.util
import pathlib

import numpy as np
import pytest
from ms_graph.passes import fuse_elementwise

from ms_ops.defs import activation, arithmetic, linalg, math_unary, optim
from ms_tensor import Parameter

_spec = importlib.util.spec_from_file_location(
    "_passes_util", pathlib.Path(__file__).with_name("_passes_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
Builder, run, names = _util.Builder, _util.run, _util.names

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tree_becomes_one_node(dtype):
    # sigmoid(x * 2 + y) - relu(x) ** 2 + tanh(y) / sqrt(|x| + 1), with a scalar input s
    b = Builder()
    x, y, s = b.input((4, 300), dtype), b.input((4, 300), dtype), b.input((), dtype)
    t1 = b(activation.Sigmoid, b(arithmetic.Add, b(arithmetic.Mul, x, 2), y))
    t2 = b(arithmetic.Pow, b(activation.ReLU, x), 2.0)
    t3 = b(arithmetic.Div, b(activation.Tanh, y),
           b(math_unary.Sqrt, b(arithmetic.Add, b(arithmetic.Abs, x), 1)))
    t4 = b(arithmetic.Maximum, b(arithmetic.Minimum, b(math_unary.Exp, x), s),
           b(math_unary.Log, b(arithmetic.Square, y)))
    out = b(arithmetic.Add, b(arithmetic.Sub, t1, t2), b(arithmetic.Mul, t3, b(arithmetic.Neg,
                                                                                t4)))
    g = b.output(out)
    args = (RNG.standard_normal((4, 300)).astype(dtype),
            RNG.standard_normal((4, 300)).astype(dtype), np.array(1.5, dtype))
    before = run(g, *args)[0]
    fuse_elementwise.run(g)
    assert names(g) == ["Fused"]
    node = g.nodes[0]
    assert node.outputs == [out] and out.producer is node
    assert len(node.args) == 3 and node.attrs["program"].scalar_args == (2,)
    after = run(g, *args)[0]
    assert after.dtype == dtype
    np.testing.assert_allclose(after, before, rtol=2e-6 if dtype == np.float32 else 1e-12,
                               atol=1e-6 if dtype == np.float32 else 1e-12)


def test_shared_value_and_graph_output_are_boundaries():
    b = Builder()
    x = b.input((5,))
    e = b(math_unary.Exp, b(arithmetic.Neg, x))  # e is read twice: its group ends here
    a = b(arithmetic.Add, e, 1.0)
    m = b(arithmetic.Mul, e, a)
    g = b.output(b(math_unary.Sqrt, m), a)  # a is also a graph output
    xv = np.linspace(-1, 1, 5, dtype=np.float32)
    before = run(g, xv)
    fuse_elementwise.run(g)
    assert names(g) == ["Fused", "Add", "Fused"]
    assert g.nodes[0].attrs["ops"] == ("Neg", "Exp")
    for got, want in zip(run(g, xv), before):
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("case", ["int", "broadcast", "matmul", "array_exponent"])
def test_not_fused(case):
    b = Builder()
    if case == "int":
        x = b.input((3,), np.int32)
        out = b(arithmetic.Neg, b(arithmetic.Mul, x, 2))
    elif case == "broadcast":  # a (3, 1) operand is neither full-size nor a scalar
        x, c = b.input((3, 4)), b.input((3, 1))
        out = b(math_unary.Exp, b(arithmetic.Add, x, c))
    elif case == "matmul":
        x = b.input((3, 3))
        out = b(linalg.MatMul, b(math_unary.Exp, x), x)
    else:
        x = b.input((3,))
        out = b(math_unary.Exp, b(arithmetic.Pow, x, x))
    g = b.output(out)
    n = len(g.nodes)
    fuse_elementwise.run(g)
    assert len(g.nodes) == n and "Fused" not in names(g)


def test_no_group_spans_an_in_place_update():
    p = Parameter(np.ones(3, np.float32), name="w")
    b = Builder()
    x = b.input((3,))
    w = b.param(p)
    early = b(arithmetic.Mul, w, 3.0)  # reads w before the update
    upd = b(optim.ApplyGradientDescent, w, 1.0, x)
    g = b.output(b(arithmetic.Add, b(math_unary.Exp, early), x), upd)
    fuse_elementwise.run(g)
    assert names(g) == ["Mul", "ApplyGradientDescent", "Fused"]
    out = run(g, np.full(3, 0.5, np.float32))
    np.testing.assert_allclose(out[0], np.exp(3.0) + 0.5, rtol=1e-6)
    np.testing.assert_array_equal(p.asnumpy(), [0.5, 0.5, 0.5])


def test_program_text_names_its_operands():
    b = Builder()
    x = b.input((2,))
    g = b.output(b(math_unary.Exp, b(arithmetic.Mul, x, 0.5)))
    fuse_elementwise.run(g)
    assert g.nodes[0].attrs["program"].text() == (
        "r0 = mul arg0 0.5\nr1 = exp r0\nreturn r1")


def test_long_chain_becomes_one_node():
    # 1,000 operators in a row: a tree deeper than Python's recursion limit.
    b = Builder()
    x, y = b.input((16,)), b.input((16,))
    v = x
    for _ in range(500):
        v = b(arithmetic.Mul, b(arithmetic.Add, v, y), 0.5)
    g = b.output(v)
    args = (RNG.standard_normal(16).astype(np.float32), np.full(16, 0.25, np.float32))
    before = run(g, *args)[0]
    fuse_elementwise.run(g)
    assert names(g) == ["Fused"]
    assert len(g.nodes[0].attrs["program"].code) == 1000
    np.testing.assert_array_equal(run(g, *args)[0], before)
