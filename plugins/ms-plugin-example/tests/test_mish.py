import numpy as np
import pytest

from ms_ops import TensorSpec
from ms_ops import functional as F
from ms_ops.testing import check_bprop
from ms_plugin_example import Mish
from ms_tensor import Tensor, bfloat16, float16, float32, float64, int32, registry


def mish_ref(x):
    x = x.astype(np.float64)
    return x * np.tanh(np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0))


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 1, 4)])
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 1e-6),
                                        (np.float16, 2e-3)])
def test_mish_matches_numpy(shape, dtype, rtol):
    x = np.random.default_rng(0).uniform(-6, 6, shape).astype(dtype)
    out = Mish(Tensor(x))
    assert out.shape == shape and out.asnumpy().dtype == dtype
    np.testing.assert_allclose(out.asnumpy(), mish_ref(x), rtol=rtol, atol=rtol)


def test_mish_is_stable_at_extremes():
    x = np.array([-1e4, -100.0, -20.0, 0.0, 20.0, 100.0, 1e4, 3e38], np.float32)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = Mish(Tensor(x)).asnumpy()
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out[4:], x[4:], rtol=1e-6)   # mish(x) -> x for large x
    np.testing.assert_allclose(out[:2], 0.0, atol=1e-30)    # and -> 0 for very negative x


def test_bfloat16_is_computed_in_float32_and_cast_back():
    out = Mish(Tensor(np.array([1.0, -1.0], np.float32), bfloat16))
    assert out.dtype is bfloat16
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), mish_ref(np.array([1.0, -1.0])),
                               rtol=1e-2)


def test_functional_primitive_and_method_reach_one_definition():
    x = Tensor(np.linspace(-3, 3, 7, dtype=np.float32))
    want = Mish(x).asnumpy()
    for got in (F.mish(x), F.Mish()(x), x.mish()):
        assert got.dtype is float32
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_integer_input_is_rejected_with_the_op_name():
    with pytest.raises(TypeError, match=r"Mish: input 'x' has dtype Int32, expected one of "
                                        r"BFloat16, Float16, Float32, Float64"):
        Mish(Tensor([1, 2], int32))


def test_inference_without_data():
    spec = Mish.abstract_eval(TensorSpec((2, 3), float16))
    assert spec == TensorSpec((2, 3), float16)


@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_gradient_matches_finite_differences(shape):
    x = np.random.default_rng(1).uniform(-4, 4, shape)
    check_bprop(Mish, x)


def test_gradient_at_extremes_is_finite_and_right():
    x = Tensor(np.array([-50.0, 0.0, 50.0], np.float64))
    (g,) = registry.load().bprop(Mish)(x, out=Mish(x), dout=Tensor(np.ones(3)))
    np.testing.assert_allclose(g.asnumpy(), [0.0, 0.6, 1.0], atol=1e-12)
    assert g.dtype is float64


def test_registry_names_the_plugin():
    reg = registry.load()
    for kind, name, backend in [("primitive", "Mish", None), ("kernel", "Mish", "CPU"),
                                ("bprop", "Mish", None), ("function", "mish", None),
                                ("function", "Mish", None), ("tensor_method", "mish", None)]:
        assert reg.entry(kind, name, backend).plugin == "example"
