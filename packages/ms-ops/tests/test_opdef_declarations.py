"""One ``registry.add_ops(op)`` registers everything an OpDef declares next to it."""

import numpy as np
import pytest

import ms_ops as ops
from ms_ops import Arg, Attr, OpDef
from ms_ops.infer import elementwise
from ms_tensor import Tensor, registry
from ms_tensor.hookspecs import hookimpl

Blend = OpDef("BlendForTest", (Arg("x"), Arg("y")), infer=elementwise(),
              functional=("blend_for_test", "mix_for_test"), methods="__xor__",
              c_template="out[i] = x[i] * 2 + y[i];", aliases=("MixForTest",),
              doc="2 * x + y, elementwise.")


@Blend.kernel("CPU", out=True)
def _blend_cpu(x, y, out=None):
    return np.add(2 * x, y, out=out)


@Blend.bprop
def _blend_bprop(x, y, out, dout):
    return ops.mul(dout, 2), dout


@Blend.samples
def _blend_samples(rng):
    yield (rng.standard_normal(3), rng.standard_normal(3)), {}


Scaled = OpDef("ScaledForTest", (Arg("x"),), (Attr("k", 1.0),), infer=elementwise(),
               methods="scaled_for_test")
Scaled.kernel("CPU")(lambda x, k=1.0: x * k)


class _Plugin:
    @hookimpl
    def ms_register_ops(self, registry):
        registry.add_ops(Blend, priority=1)  # on purpose: its __xor__ replaces BitwiseXor's
        registry.add_ops(Scaled)


@pytest.fixture(scope="module")
def reg():
    registry.register_plugin(_Plugin(), "declarations-test")
    yield registry.load()
    registry.unregister_plugin("declarations-test")


def test_every_declaration_is_registered_under_the_plugin(reg):
    assert reg.primitive("BlendForTest") is Blend
    assert reg.kernel(Blend, "CPU") is _blend_cpu
    assert reg.entry("kernel", "BlendForTest", "CPU").info == {"dtypes": None, "out": True}
    assert reg.bprop(Blend) is _blend_bprop
    assert reg.lookup("op_sample", "BlendForTest") is _blend_samples
    assert reg.lookup("c_template", "BlendForTest") == "out[i] = x[i] * 2 + y[i];"
    assert reg.lookup("function", "BlendForTest") is Blend.primitive
    assert reg.lookup("function", "MixForTest") is Blend.primitive
    assert reg.lookup("function", "blend_for_test") is Blend
    assert {e.plugin for e in reg.entries() if "ForTest" in e.name or "for_test" in e.name} \
        == {"declarations-test"}


def test_methods_are_generated_from_the_definition(reg):
    x, y = Tensor(np.array([1.0, 2.0])), Tensor(np.array([10.0, 20.0]))
    np.testing.assert_allclose((x ^ y).asnumpy(), [12.0, 24.0])
    np.testing.assert_allclose((5.0 ^ x).asnumpy(), [11.0, 12.0])  # __rxor__ comes with it
    np.testing.assert_allclose(ops.mix_for_test(x, y).asnumpy(), [12.0, 24.0])
    np.testing.assert_allclose(x.scaled_for_test(3.0).asnumpy(), [3.0, 6.0])
    np.testing.assert_allclose(x.scaled_for_test(k=0.5).asnumpy(), [0.5, 1.0])
    assert type(x).__xor__.__name__ == "__xor__"
    assert reg.conflicts == []  # an explicit priority is an override, not a conflict


def test_unregistering_gives_the_method_back(reg):
    registry.unregister_plugin("declarations-test")
    try:
        registry.load()  # methods are installed when the registry loads
        a = Tensor(np.array([5, 3], np.int32))
        assert (a ^ Tensor(np.array([1, 1], np.int32))).tolist() == [4, 2]
    finally:
        registry.register_plugin(_Plugin(), "declarations-test")
