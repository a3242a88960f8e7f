import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ms_lite.format import LiteFormatError, from_buffer, load, save, to_bytes
from ms_lite.ir import Graph, Node, Value
from ms_lite.quant.params import QuantParam
from ms_tensor import dtype as mstype


def _graph():
    g = Graph([Value("x", (2, 3), "float32")], [Value("y", (3, 2), "float32")],
              [Node("Add", ["x", "w"], ["t"], {}, "add"),
               Node("Reshape", ["t"], ["r"], {"input_shape": (3, 2)}, "reshape"),
               Node("Cast", ["r"], ["y"], {"dtype": mstype.float32, "flags": [1, (2, 3)]},
                    "cast")],
              {"w": np.arange(3, dtype=np.float32), "q": np.arange(-3, 3, dtype=np.int8)},
              "tiny")
    g.values["t"] = Value("t", (2, 3), "float32", QuantParam([0.5], [3]))
    g.values["q"] = Value("q", (6,), "int8", QuantParam([0.1] * 6, [0] * 6, 0))
    return g


def test_round_trip_keeps_everything(tmp_path):
    g = _graph()
    path = tmp_path / "m.ms"
    size = save(g, path, meta={"producer": "test"})
    assert size == os.path.getsize(path)
    h, meta = load(path)
    assert meta == {"producer": "test"}
    assert (h.name, h.inputs, h.outputs) == (g.name, g.inputs, g.outputs)
    assert h.nodes == g.nodes
    assert h.nodes[2].attrs["dtype"] is mstype.float32
    for k, c in g.constants.items():
        np.testing.assert_array_equal(h.constants[k], c)
        assert h.constants[k].dtype == c.dtype
    assert h.values["t"].quant == QuantParam([0.5], [3])
    assert h.values["q"].quant.axis == 0



def test_complex_tensors_round_trip():
    c = (np.arange(6) + 1j * np.arange(6)[::-1]).reshape(2, 3)
    g = Graph([Value("z", (2, 3), "complex64")], [Value("y", (2, 3), "complex128")],
              [Node("Mul", ["z", "c"], ["y"], {}, "mul")], {"c": c}, "complex")
    g2, _ = from_buffer(to_bytes(g), "complex.ms")
    assert g2.inputs[0].dtype == "complex64" and g2.constants["c"].dtype == np.complex128
    np.testing.assert_array_equal(g2.constants["c"], c)

def test_constants_are_aligned_read_only_views_of_the_map(tmp_path):
    path = tmp_path / "m.ms"
    save(_graph(), path)
    h, _ = load(path)
    w = h.constants["w"]
    assert not w.flags.writeable and not w.flags.owndata
    assert w.ctypes.data % 64 == 0


def test_not_a_model_and_empty_file_are_named(tmp_path):
    bad = tmp_path / "x.ms"
    bad.write_bytes(b"")
    with pytest.raises(LiteFormatError, match=r"x\.ms: empty file"):
        load(bad)
    bad.write_bytes(b"PK\x03\x04" + b"\0" * 200)
    with pytest.raises(LiteFormatError, match=r"x\.ms: not a microspore lite model"):
        load(bad)


def test_truncated_file_is_named(tmp_path):
    data = to_bytes(_graph())
    path = tmp_path / "cut.ms"
    path.write_bytes(data[:-10])
    with pytest.raises(LiteFormatError, match=r"cut\.ms: .*truncated"):
        load(path)


def test_flipped_byte_fails_the_checksum(tmp_path):
    data = bytearray(to_bytes(_graph()))
    data[-20] ^= 0xFF
    with pytest.raises(LiteFormatError, match="checksum"):
        from_buffer(bytes(data), "m.ms")


_DATA = to_bytes(_graph())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(_DATA) - 1), st.integers(1, 255)),
                min_size=1, max_size=8),
       st.integers(0, len(_DATA)))
def test_fuzzed_files_load_or_raise_lite_format_error(flips, cut):
    """Without the checksum every parser path sees the damage: it must answer
    LiteFormatError naming the buffer, or a graph that validates."""
    data = bytearray(_DATA)
    for pos, x in flips:
        data[pos] ^= x
    data = bytes(data[:cut]) if cut < len(data) else bytes(data)
    try:
        g, _ = from_buffer(data, "fuzz.ms", verify=False)
    except LiteFormatError as e:
        assert str(e).startswith("fuzz.ms: ")
    else:
        g.validate()
