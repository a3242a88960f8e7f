"""C templates come through the registry: an OpDef's own ``c_template=``, a plugin's
``ms_register_c_templates`` hook, and priority between plugins; int8 kernels are bit-exact."""

from __future__ import annotations

import numpy as np
import pytest

from ms_lite.codegen import CTemplate, MissingTemplateError, generate, targets
from ms_lite.ir import Graph, Node, Value
from ms_ops import Arg, OpDef
from ms_ops.infer import elementwise
from ms_tensor import registry
from ms_tensor.hookspecs import hookimpl

needs_gcc = pytest.mark.skipif(bool(targets.missing_tools("x86")),
                               reason="gcc or make is not installed")

Axpy = OpDef("AxpyForCodegenTest", (Arg("x"), Arg("y")), infer=elementwise(),
             c_template="out[i] = x[i] * 2.0f + y[i];", doc="2 * x + y, elementwise.")
Axpy.kernel("CPU")(lambda x, y: 2 * x + y)

Cube = OpDef("CubeForCodegenTest", (Arg("x"),), infer=elementwise(), doc="x ** 3.")
Cube.kernel("CPU")(lambda x: x * x * x)

CUBE_C = CTemplate("static void cube_f32(const float *x, float *y, int32_t n)\n"
                   "{ for (int32_t i = 0; i < n; ++i) y[i] = x[i] * x[i] * x[i]; }\n",
                   "cube_f32(${x}, ${out}, ${n});", inplace=True)


class _Plugin:
    @hookimpl
    def ms_register_ops(self, registry):
        registry.add_ops(Axpy, Cube)

    @hookimpl
    def ms_register_c_templates(self, registry):
        registry.add_c_template(Cube, CUBE_C, dtype="float32")


@pytest.fixture
def plugin():
    registry.register_plugin(_Plugin(), "codegen-test-plugin")
    yield
    registry.unregister_plugin("codegen-test-plugin")


def _graph():
    return Graph([Value("a", (3, 5), "float32"), Value("b", (3, 5), "float32")],
                 [Value("y", (3, 5), "float32")],
                 [Node("AxpyForCodegenTest", ["a", "b"], ["s"], {}, "axpy"),
                  Node("CubeForCodegenTest", ["s"], ["y"], {}, "cube")], {}, "plugin_ops")


@needs_gcc
def test_plugin_operators_bring_their_c(plugin, tmp_path):
    reg = registry.load()
    assert reg.entry("c_template", "CubeForCodegenTest", "float32").plugin == \
        "codegen-test-plugin"
    p = generate(_graph(), tmp_path)
    net_c = (p.path / "src/net.c").read_text()
    assert "x[i] * 2.0f + y[i]" in net_c and "cube_f32(" in net_c
    targets.build(p.path, "x86")
    got, passed = targets.parse_golden(targets.run_program(p.path, "x86").stdout, p.outputs)
    assert passed
    a, b = p.golden_inputs
    np.testing.assert_allclose(got[0], (2 * a + b) ** 3, rtol=1e-5)


def test_a_plain_string_template_refuses_broadcasting(plugin, tmp_path):
    g = Graph([Value("a", (3, 5), "float32"), Value("b", (5,), "float32")],
              [Value("s", (3, 5), "float32")],
              [Node("AxpyForCodegenTest", ["a", "b"], ["s"], {}, "axpy")], {}, "bcast")
    with pytest.raises(MissingTemplateError, match=r"'AxpyForCodegenTest'.*input 'b' has "
                                                   r"shape \(5,\)"):
        generate(g, tmp_path)


def test_a_template_for_another_dtype_is_not_used(plugin, tmp_path):
    g = Graph([Value("a", (4,), "int8")], [Value("y", (4,), "int8")],
              [Node("CubeForCodegenTest", ["a"], ["y"], {}, "cube")], {}, "int8_cube")
    with pytest.raises(MissingTemplateError, match=r"CubeForCodegenTest \(int8, node 'cube'\)"):
        generate(g, tmp_path)


def test_builtin_templates_are_registered_by_ms_lite():
    reg = registry.load()
    for op, dtype in (("Conv2D", "float32"), ("Dense", "float32"), ("Softmax", "float32"),
                      ("QuantConv2D", "int8"), ("QuantFullConnection", "int8"),
                      ("QuantDTypeCast", "float32")):
        e = reg.entry("c_template", op, dtype)
        assert e is not None and e.plugin == "codegen", (op, dtype)


@needs_gcc
def test_int8_graph_in_c_is_bit_exact_with_the_python_runtime(int8_cnn, tmp_path):
    from ms_lite.runtime.executor import Executor

    g = int8_cnn()
    rng = np.random.default_rng(3)
    # Large inputs saturate the quantizer and the requantization on purpose.
    x = (rng.standard_normal((2, 2, 15, 15)) * 3).astype(np.float32)
    p = generate(g, tmp_path, golden_inputs=[x])
    targets.build(p.path, "x86")
    got, passed = targets.parse_golden(targets.run_program(p.path, "x86").stdout, p.outputs)
    want = Executor(g).run([x])
    assert passed
    np.testing.assert_array_equal(got[1], want[1])                   # int8, bit for bit
    np.testing.assert_array_equal(got[0].view(np.uint32), want[0].view(np.uint32))
    assert (want[1] == -128).any() or (want[1] == 127).any()


@needs_gcc
def test_int8_convolution_with_dilation_and_asymmetric_padding(int8_cnn, tmp_path):
    from ms_lite.runtime.executor import Executor

    # 15x15 -> (15 + 2 - 5) + 1 = 13 rows, (15 + 2 - 3) // 2 + 1 = 8 columns; pool -> 7x4
    g = int8_cnn(5, {"pad": (2, 0, 1, 1), "stride": (1, 2), "dilation": (2, 1)},
                 fc_in=6 * 7 * 4)
    x = (np.random.default_rng(4).standard_normal((2, 2, 15, 15)) * 2).astype(np.float32)
    p = generate(g, tmp_path, golden_inputs=[x])
    targets.build(p.path, "x86")
    got, passed = targets.parse_golden(targets.run_program(p.path, "x86").stdout, p.outputs)
    assert passed
    np.testing.assert_array_equal(got[1], Executor(g).run([x])[1])
