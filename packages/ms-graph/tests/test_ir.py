"""The IR: building, printing (text, DOT) and the pass helpers."""

import numpy as np
from ms_graph import ir

from ms_ops.defs import arithmetic
from ms_ops.opdef import TensorSpec
from ms_tensor import float32


def _graph():
    spec = TensorSpec((2, 3), float32)
    x, y = ir.Value(spec), ir.Value(spec)
    c = ir.Value(TensorSpec((), float32), const=np.float32(2.0))
    mul = ir.Node(arithmetic.Mul, [x, y])
    m = mul.add_output(spec)
    add = ir.Node(arithmetic.Add, [m, c])
    a = add.add_output(spec)
    return ir.Graph([x, y], [], [mul, add], [a], 0, name="f"), (x, y, c, m, a, mul, add)


def test_text_one_line_per_node():
    g, _ = _graph()
    lines = g.text().splitlines()
    assert lines[0] == "graph f(%0, %1) {"
    assert "  %3 = Mul(%0, %1) : (2, 3) Float32" in lines
    assert "  %4 = Add(%3, %2) : (2, 3) Float32" in lines
    assert "  %2 = const 2.0 : () Float32" in lines
    assert lines[-2:] == ["  return %4", "}"]


def test_dot_has_edges_for_every_use():
    g, _ = _graph()
    dot = g.dot()
    assert dot.startswith('digraph "f" {')
    assert "in0 -> n0" in dot and "in1 -> n0" in dot and "n0 -> n1" in dot and "c0 -> n1" in dot
    assert "n1 -> out0" in dot


def test_users_and_replace_uses():
    g, (x, y, c, m, a, mul, add) = _graph()
    u = ir.users(g)
    assert u[x] == [mul] and u[m] == [add] and a not in u
    assert ir.replace_uses(g, m, x) == 1
    assert add.args[0] is x
    assert ir.users(g)[x] == [mul, add]
    assert ir.replace_uses(g, a, y) == 1 and g.outputs == [y]


def test_captured_free_values_of_a_subgraph():
    g, (x, y, c, m, a, mul, add) = _graph()
    inner = ir.Node(arithmetic.Neg, [x])
    out = inner.add_output(x.spec)
    sub = ir.Graph([], [], [inner], [out])
    assert ir.captured(sub) == [x]
    call = ir.Node("Call", [], subgraphs=(sub,))
    call.add_output(x.spec)
    g.nodes.append(call)
    assert call in ir.users(g)[x]
