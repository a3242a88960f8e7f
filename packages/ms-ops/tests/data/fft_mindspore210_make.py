"""Records fft_mindspore210.npz: run with MindSpore 2.10 installed (``python this.py``).

``cases(ops, Tensor, ms)`` is written against MindSpore's API; ``test_fft_vs_mindspore.py``
runs the very same calls on microspore and compares values, dtypes, shapes and error types
with what MindSpore 2.10 (CPU) gave here.
"""

import os

import numpy as np

rng = np.random.default_rng(0)
r1 = rng.standard_normal(6).astype(np.float32)
r2 = rng.standard_normal((3, 5)).astype(np.float32)
r3 = rng.standard_normal((2, 3, 4))
c1 = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64)
c2 = (rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))).astype(np.complex128)


def cases(ops, T, ms):
    return {
        "fft": lambda: ops.fft(T(r1)),
        "fft_n8": lambda: ops.fft(T(r1), n=8),
        "fft_n3_ortho": lambda: ops.fft(T(r1), n=3, norm="ortho"),
        "fft_c": lambda: ops.fft(T(c1), norm="forward"),
        "ifft": lambda: ops.ifft(T(c1)),
        "ifft_r": lambda: ops.ifft(T(r1), n=4),
        "rfft": lambda: ops.rfft(T(r1)),
        "rfft_n5": lambda: ops.rfft(T(r1), n=5, norm="ortho"),
        "irfft": lambda: ops.irfft(T(c1)),
        "irfft_n7": lambda: ops.irfft(T(c1), n=7, norm="forward"),
        "hfft": lambda: ops.hfft(T(c1)),
        "hfft_n6o": lambda: ops.hfft(T(c1), n=6, norm="ortho"),
        "ihfft": lambda: ops.ihfft(T(r1)),
        "ihfft_f": lambda: ops.ihfft(T(r1), norm="forward"),
        "fft2": lambda: ops.fft2(T(r2)),
        "ifft2": lambda: ops.ifft2(T(c2), s=(3, 3)),
        "rfft2": lambda: ops.rfft2(T(r2)),
        "irfft2": lambda: ops.irfft2(T(c2)),
        "hfft2": lambda: ops.hfft2(T(c2)),
        "ihfft2": lambda: ops.ihfft2(T(r2)),
        "fftn": lambda: ops.fftn(T(r3)),
        "fftn_s": lambda: ops.fftn(T(r3), s=(2, 6)),
        "fftn_dim": lambda: ops.fftn(T(r3), dim=(0, 2), norm="ortho"),
        "ifftn": lambda: ops.ifftn(T(r3), s=(3, 3), dim=(1, 0)),
        "rfftn": lambda: ops.rfftn(T(r3)),
        "rfftn_s": lambda: ops.rfftn(T(r3), s=(4, 6)),
        "irfftn": lambda: ops.irfftn(T(c2)),
        "irfftn_s": lambda: ops.irfftn(T(c2), s=(4, 5)),
        "hfftn": lambda: ops.hfftn(T(c2)),
        "ihfftn": lambda: ops.ihfftn(T(r3)),
        "ihfftn_dim": lambda: ops.ihfftn(T(r3), dim=(0, 1), norm="ortho"),
        "fftshift": lambda: ops.fftshift(T(r2)),
        "fftshift_d": lambda: ops.fftshift(T(r2), dim=1),
        "ifftshift": lambda: ops.ifftshift(T(r2)),
        "ifftshift_t": lambda: ops.ifftshift(T(r3), dim=(0, 2)),
        "fftfreq": lambda: ops.fftfreq(7, 0.3),
        "rfftfreq": lambda: ops.rfftfreq(8, 2.0),
        "rfftfreq64": lambda: ops.rfftfreq(8, dtype=ms.float64),
        "fft_i32": lambda: ops.fft(T(np.arange(5, dtype=np.int32))),
        "fft_f16": lambda: ops.fft(T(np.arange(4, dtype=np.float16))),
        "irfft_f32": lambda: ops.irfft(T(r1)),
        "rfft_c_err": lambda: ops.rfft(T(c1)),
        "fft_n0": lambda: ops.fft(T(r1), n=0),
        "fft_badnorm": lambda: ops.fft(T(r1), norm="x"),
        "fft_dim": lambda: ops.fft(T(r1), dim=1),
        "fftn_dup": lambda: ops.fftn(T(r3), dim=(0, 0)),
        "fftn_mismatch": lambda: ops.fftn(T(r3), s=(2, 2), dim=(0,)),
        "fft_0d": lambda: ops.fft(T(np.float32(1))),
        "fft_bool": lambda: ops.fft(T(np.ones(3, bool))),
        "real": lambda: ops.real(T(c1)),
        "imag": lambda: ops.imag(T(c2)),
        "conj": lambda: ops.conj(T(c1)),
        "angle": lambda: ops.angle(T(c2)),
        "real_f": lambda: ops.real(T(r1)),
        "imag_f": lambda: ops.imag(T(r1)),
        "conj_i": lambda: ops.conj(T(np.arange(3))),
        "angle_f": lambda: ops.angle(T(r1)),
        "Complex": lambda: ops.Complex()(T(r1), T(r1)),
        "Complex_bad": lambda: ops.Complex()(T(r1), T(r1.astype(np.float64))),
        "ComplexAbs": lambda: ops.ComplexAbs()(T(c2)),
        "Real": lambda: ops.Real()(T(c1)),
        "Imag": lambda: ops.Imag()(T(c1)),
        "Conj": lambda: ops.Conj()(T(c2)),
        "Angle": lambda: ops.Angle()(T(c1)),
        "polar": lambda: ops.polar(T(r1), T(r1)),
        "Polar": lambda: ops.Polar()(T(r2), T(r2)),
        "view_as_real": lambda: ops.view_as_real(T(c2)),
        "view_as_real_f": lambda: ops.view_as_real(T(r1)),
        "m_real": lambda: T(c1).real(),
        "m_imag": lambda: T(c1).imag(),
        "m_conj": lambda: T(c1).conj(),
        "m_angle": lambda: T(c1).angle(),
        "sub_c": lambda: T(c1) - T(c1 * 2),
        "neg_c": lambda: -T(c1),
        "div_c": lambda: T(c1) / T(c1 + 1),
        "div_cf": lambda: T(c1) / T(r1[:5]),
        "bartlett": lambda: ops.bartlett_window(T(np.int32(7))),
        "bartlett_np": lambda: ops.bartlett_window(
            T(np.int64(6)), periodic=False, dtype=ms.float64
        ),
        "blackman": lambda: ops.blackman_window(T(np.int32(7))),
        "blackman_np": lambda: ops.blackman_window(T(np.int32(6)), periodic=False),
        "hamming": lambda: ops.hamming_window(7),
        "hamming_ab": lambda: ops.hamming_window(
            6, periodic=False, alpha=0.5, beta=0.3, dtype=ms.float64
        ),
        "hann": lambda: ops.hann_window(7),
        "hann_np": lambda: ops.hann_window(6, periodic=False, dtype=ms.float32),
        "kaiser": lambda: ops.kaiser_window(7),
        "kaiser_np": lambda: ops.kaiser_window(6, periodic=False, beta=5.0, dtype=ms.float32),
        "hann1": lambda: ops.hann_window(1),
        "hann0": lambda: ops.hann_window(0),
        "kaiser1": lambda: ops.kaiser_window(1),
        "bartlett1": lambda: ops.bartlett_window(T(np.int32(1))),
        "bartlett0": lambda: ops.bartlett_window(T(np.int32(0))),
        "hann_neg": lambda: ops.hann_window(-1),
        "bartlett_int": lambda: ops.bartlett_window(5),
        "hann_f": lambda: ops.hann_window(2.5),
        "bartlett_ft": lambda: ops.bartlett_window(T(np.float32(5))),
        "BartlettWindow": lambda: ops.BartlettWindow()(T(np.int32(5))),
        "BlackmanWindow": lambda: ops.BlackmanWindow(False, ms.float64)(T(np.int64(5))),
        "HammingWindow": lambda: ops.HammingWindow(periodic=False, alpha=0.6, beta=0.4)(
            T(np.int32(5))
        ),
        "HammingWindow1d": lambda: ops.HammingWindow()(T(np.array([5], np.int64))),
        "stft": lambda: ops.stft(T(rng2()), 8, return_complex=True),
        "stft_real": lambda: ops.stft(T(rng2()), 8),
        "stft_hop": lambda: ops.stft(
            T(rng2()),
            8,
            hop_length=3,
            win_length=6,
            window=T(np.hanning(6).astype(np.float32)),
            return_complex=True,
        ),
        "stft_nc": lambda: ops.stft(
            T(rng2()), 8, center=False, normalized=True, onesided=False, return_complex=True
        ),
        "stft_batch": lambda: ops.stft(
            T(np.stack([rng2(), rng2() * 2])),
            8,
            hop_length=4,
            pad_mode="CONSTANT",
            return_complex=True,
        ),
        "STFT": lambda: ops.STFT(8, 2, 8, False, True, True)(
            T(rng2()[None]), T(np.hanning(8).astype(np.float32))
        ),
        "FFTWithSize_c": lambda: ops.FFTWithSize(1, False, False)(T(c1)),
        "FFTWithSize_ci": lambda: ops.FFTWithSize(2, True, False, norm="ortho")(T(c2)),
        "FFTWithSize_r": lambda: ops.FFTWithSize(2, False, True)(T(r2)),
        "FFTWithSize_rn": lambda: ops.FFTWithSize(1, False, True, onesided=False)(T(r2)),
        "FFTWithSize_ri": lambda: ops.FFTWithSize(1, True, True)(T(c2)),
        "FFTWithSize_ris": lambda: ops.FFTWithSize(1, True, True, signal_sizes=(5,))(T(c2)),
        "FFTWithSize_rin": lambda: ops.FFTWithSize(2, True, True, onesided=False)(T(c2)),
    }


def rng2():
    return (np.sin(np.arange(20) * 0.7) + np.arange(20) * 0.05).astype(np.float32)


def run(ops, T, ms):
    """``{case: ("ok", array, dtype name) or ("err", error type name, message)}``."""
    out = {}
    for k, f in cases(ops, T, ms).items():
        try:
            r = f()
            out[k] = ("ok", r.asnumpy(), str(r.dtype).replace("mindspore.", "").lower())
        except Exception as e:  # noqa: BLE001 - the error type is what is recorded
            out[k] = ("err", type(e).__name__, str(e).split("\n")[0][:160])
    return out


if __name__ == "__main__":
    import mindspore
    from mindspore import Tensor, ops

    flat = {}
    for key, (status, value, dtype) in run(ops, Tensor, mindspore).items():
        if status == "ok":
            flat[key] = value
            flat[key + ".dtype"] = np.array(dtype)
        else:
            flat[key + ".error"] = np.array(value)
    np.savez_compressed(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "fft_mindspore210.npz"), **flat
    )
