import numpy as np
import pytest

from ms_lite.ir import Graph, IRError, Node, Value


def _graph(nodes, outputs=("y",)):
    return Graph([Value("x", (2,), "float32")], [Value(o, (2,), "float32") for o in outputs],
                 nodes, {"c": np.ones(2, np.float32)}, "g")


def test_validate_accepts_topological_graph():
    g = _graph([Node("Add", ["x", "c"], ["t"], {}, "a"), Node("Mul", ["t", "x"], ["y"], {}, "m")])
    assert g.validate() is g
    assert g.producers()["t"].name == "a"
    assert [n.name for n in g.consumers()["x"]] == ["a", "m"]


def test_validate_names_undefined_input():
    g = _graph([Node("Mul", ["t", "x"], ["y"], {}, "m"), Node("Add", ["x", "c"], ["t"], {}, "a")])
    with pytest.raises(IRError, match=r"node 'm' \(Mul\) reads 't'"):
        g.validate()


def test_validate_rejects_duplicate_node_names_and_missing_output():
    with pytest.raises(IRError, match="two nodes"):
        _graph([Node("Neg", ["x"], ["t"], {}, "a"), Node("Neg", ["t"], ["y"], {}, "a")]).validate()
    with pytest.raises(IRError, match="output 'y' is never computed"):
        _graph([Node("Neg", ["x"], ["t"], {}, "a")]).validate()


def test_value_normalizes_dtype_and_shape():
    v = Value("x", [2, np.int64(3)], np.float16)
    assert v.shape == (2, 3) and v.dtype == "float16"
