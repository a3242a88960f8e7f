"""The FFT functions against numpy.fft, their gradients against finite differences and
PyTorch, and their errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ms_ops as ops
from ms_autodiff import grad
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal((2, 3, 4))
Z3 = RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))


def _np(name):
    return getattr(np.fft, name)


@pytest.mark.parametrize("name,x,kw,np_kw", [
    ("fft", X3, {"n": 6, "dim": 1, "norm": "ortho"}, {"n": 6, "axis": 1, "norm": "ortho"}),
    ("ifft", Z3, {"n": 3}, {"n": 3}),
    ("rfft", X3, {"dim": 0, "norm": "forward"}, {"axis": 0, "norm": "forward"}),
    ("irfft", Z3, {"n": 5}, {"n": 5}),
    ("hfft", Z3, {"norm": "ortho"}, {"norm": "ortho"}),
    ("ihfft", X3, {"n": 7}, {"n": 7}),
    ("fft2", Z3, {"s": (4, 2)}, {"s": (4, 2)}),
    ("ifft2", X3, {"dim": (0, 2)}, {"axes": (0, 2)}),
    ("rfft2", X3, {"s": (2, 5)}, {"s": (2, 5)}),
    ("irfft2", Z3, {}, {}),
    ("fftn", X3, {"s": (3, 3, 3), "norm": "forward"},
     {"s": (3, 3, 3), "axes": (0, 1, 2), "norm": "forward"}),
    ("ifftn", Z3, {"dim": (2, 0)}, {"axes": (2, 0)}),
    ("rfftn", X3, {}, {}),
    ("irfftn", Z3, {"s": (3, 6), "dim": (0, 2)}, {"s": (3, 6), "axes": (0, 2)}),
])
def test_fft_matches_numpy_in_float64(name, x, kw, np_kw):
    got = getattr(ops, name)(Tensor(x), **kw)
    want = _np(name)(x, **np_kw)
    assert got.dtype is (mstype.complex128 if want.dtype.kind == "c" else mstype.float64)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)


def test_fft_keeps_single_precision():
    x = RNG.standard_normal(8).astype(np.float32)
    assert ops.fft(Tensor(x)).dtype is mstype.complex64
    assert ops.irfft(ops.rfft(Tensor(x))).dtype is mstype.float32
    np.testing.assert_allclose(ops.irfft(ops.rfft(Tensor(x))).asnumpy(), x, atol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda x: ops.fft(x, n=7, norm="ortho"),
    lambda x: ops.ifft(x, n=3, dim=0),
    lambda x: ops.rfft(x, n=6),
    lambda x: ops.irfft(x, n=5, norm="forward"),
    lambda x: ops.hfft(x, n=4),
    lambda x: ops.ihfft(x, dim=0),
    lambda x: ops.fft2(x, s=(2, 5)),
    lambda x: ops.irfftn(x, s=(4, 4)),
    lambda x: ops.hfftn(x, dim=(0,)),
    lambda x: ops.ihfft2(x, norm="ortho"),
    lambda x: ops.fftshift(ops.fft(x), dim=1),
    lambda x: ops.ifftshift(x),
    lambda x: ops.FFTWithSize(2, True, True, onesided=False)(x),
], ids=["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "irfftn", "hfftn", "ihfft2",
        "fftshift", "ifftshift", "FFTWithSize"])
@pytest.mark.parametrize("complex_input", [False, True], ids=["real", "complex"])
def test_fft_gradients_match_finite_differences(fn, complex_input):
    x = RNG.standard_normal((3, 4))
    if complex_input:
        x = x + 1j * RNG.standard_normal((3, 4))
    check_grad(fn, x, rtol=1e-6, atol=1e-8)


def test_stft_gradient_matches_finite_differences():
    window = Tensor(np.hanning(6))
    check_grad(lambda x: ops.stft(x, 8, hop_length=3, win_length=6, window=window,
                                  return_complex=True), RNG.standard_normal(20), atol=1e-8)
    check_grad(lambda x: ops.stft(x, 8, normalized=True), RNG.standard_normal((2, 16)),
               atol=1e-8)


def test_gradient_of_real_input_is_real():
    x = Tensor(RNG.standard_normal(6))
    g = grad(lambda t: ops.real(ops.fft(t) * Tensor(np.arange(6) * 1j)).sum())(x)
    assert g.dtype is mstype.float64


def test_complex_gradients_follow_pytorch():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((3, 8))
    w = RNG.standard_normal((3, 5)) + 1j * RNG.standard_normal((3, 5))

    def ours(t):
        spec = ops.rfft(t, n=8, norm="ortho") * Tensor(w)
        back = ops.ifft(spec, n=6)
        return (ops.ComplexAbs()(back) + ops.angle(back) + ops.real(back * back)).sum()

    tx = torch.tensor(x, requires_grad=True)
    spec = torch.fft.rfft(tx, n=8, norm="ortho") * torch.tensor(w)
    back = torch.fft.ifft(spec, n=6)
    (back.abs() + back.angle() + (back * back).real).sum().backward()
    np.testing.assert_allclose(grad(ours)(Tensor(x)).asnumpy(), tx.grad.numpy(), rtol=1e-10,
                               atol=1e-12)


def test_complex_input_gradient_follows_pytorch():
    torch = pytest.importorskip("torch")
    z = RNG.standard_normal((2, 6)) + 1j * RNG.standard_normal((2, 6))

    def ours(t):
        y = ops.fft2(t, s=(2, 4)) / (ops.conj(t[:, :4]) + 3)
        return (ops.real(y) * 2 - ops.imag(y * y)).sum() + ops.irfft(t, n=7).sum()

    tz = torch.tensor(z, requires_grad=True)
    y = torch.fft.fft2(tz, s=(2, 4)) / (tz[:, :4].conj() + 3)
    ((y.real * 2 - (y * y).imag).sum() + torch.fft.irfft(tz, n=7).sum()).backward()
    np.testing.assert_allclose(grad(ours)(Tensor(z)).asnumpy(), tz.grad.numpy(), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("call,error,text", [
    (lambda: ops.fft(Tensor(X3), n=0), ValueError, "n must be greater than 0"),
    (lambda: ops.fft(Tensor(X3), norm="both"), ValueError, "norm must be one of"),
    (lambda: ops.fft(Tensor(X3), dim=3), ValueError, "dim 3 is out of range"),
    (lambda: ops.fftn(Tensor(X3), dim=(0, -3)), ValueError, "must be unique"),
    (lambda: ops.fftn(Tensor(X3), s=(2, 2), dim=(1,)), ValueError, "same length"),
    (lambda: ops.fftn(Tensor(X3), s=(2, 0)), ValueError, "greater than 0"),
    (lambda: ops.fft(Tensor(np.float32(1.0))), ValueError, "at least 1 dimension"),
    (lambda: ops.fft(Tensor(np.ones(3, bool))), TypeError, "Bool"),
    (lambda: ops.fft(Tensor(X3), n=2.0), TypeError, "n must be an int"),
    (lambda: ops.fftfreq(0), ValueError, "positive int"),
    (lambda: ops.fftshift(Tensor(X3), dim=5), ValueError, "out of range"),
    (lambda: ops.stft(Tensor(X3), 4), ValueError, "1-d or 2-d"),
    (lambda: ops.stft(Tensor(np.ones(10)), 8, win_length=9), ValueError, "win_length"),
    (lambda: ops.stft(Tensor(np.ones(10)), 8, pad_mode="wrap"), ValueError, "pad_mode"),
    (lambda: ops.FFTWithSize(4, False, False), ValueError, "signal_ndim"),
])
def test_fft_rejects_bad_arguments(call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_compiled_fft_and_its_gradient_equal_eager():
    jit = pytest.importorskip("ms_graph").jit
    x = Tensor(RNG.standard_normal((4, 6)))
    w = Tensor(RNG.standard_normal((4, 4)) + 1j)

    def f(t):
        spec = ops.rfft2(t) * w
        return (ops.ComplexAbs()(spec) + ops.real(spec * t[:, :4])).sum()

    eager = ops.irfft2(ops.rfft2(x) * 2, s=(4, 6))
    compiled = jit(lambda t: ops.irfft2(ops.rfft2(t) * 2, s=(4, 6)))(x)
    np.testing.assert_allclose(compiled.asnumpy(), eager.asnumpy())
    np.testing.assert_allclose(eager.asnumpy(), 2 * x.asnumpy(), atol=1e-12)
    g_eager, g_jit = grad(f)(x), jit(grad(f))(x)
    assert g_jit.dtype is mstype.float64
    np.testing.assert_allclose(g_jit.asnumpy(), g_eager.asnumpy(), rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       norm=st.sampled_from([None, "forward", "ortho"]), seed=st.integers(0, 2**16))
def test_round_trips_and_parseval_on_any_shape(shape, norm, seed):
    x = np.random.default_rng(seed).standard_normal(shape)
    spec = ops.fftn(Tensor(x), norm=norm)
    np.testing.assert_allclose(ops.ifftn(spec, norm=norm).asnumpy(), x, atol=1e-12)
    back = ops.irfftn(ops.rfftn(Tensor(x), norm=norm), s=tuple(shape), norm=norm)
    np.testing.assert_allclose(back.asnumpy(), x, atol=1e-12)
    energy = float(np.sum(np.abs(ops.fftn(Tensor(x), norm="ortho").asnumpy()) ** 2))
    np.testing.assert_allclose(energy, np.sum(x ** 2), rtol=1e-10)
