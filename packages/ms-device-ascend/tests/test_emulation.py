"""The Ascend numerics emulation: Cube operators bit-equal to numpy's fp16-in /
fp32-accumulate reference under each precision mode, only while asked for, never stale in
graph mode, and a LeNet5 that tracks its float32 run."""

import warnings

import numpy as np
import pytest

from ms_device_ascend import cube
from ms_device_ascend.backend import AscendEmulationBackend, EmulationWarning
from ms_ops import functional as F
from ms_ops.defs.linalg import BatchMatMul, MatMul
from ms_ops.defs.nn_conv import Conv2D
from ms_tensor import Tensor, registry
from ms_tensor.context import (
    PYNATIVE_MODE,
    get_context,
    set_context,
)

MODES = ["force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "force_fp32",
         "must_keep_origin_dtype"]
ROUND_OUT = {"force_fp16": True, "allow_mix_precision": True}
ROUND_IN = {"must_keep_origin_dtype": False}


@pytest.fixture(autouse=True)
def cpu_after():
    warnings.simplefilter("ignore", EmulationWarning)
    yield
    set_context(device_target="CPU", ascend_config=None, mode=PYNATIVE_MODE)


def ascend(mode):
    set_context(device_target="Ascend", ascend_config={"precision_mode": mode})


def h(a):
    return a.astype(np.float16).astype(np.float32)


def reference(product, mode, *operands):
    """numpy: operands rounded to float16 (or not), float32 products and sums, the result
    rounded to float16 (or not) as the precision mode says."""
    ins = [h(a) if ROUND_IN.get(mode, True) else a for a in operands]
    out = product(*ins)
    return h(out) if ROUND_OUT.get(mode, False) else out


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def im2col_conv(x, w, stride=1, pad=0):
    """Conv2D by numpy alone: padded sliding windows and a float32 matmul per sample."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))
    win = win[:, :, ::stride, ::stride]
    n, c, oh, ow = win.shape[:4]
    col = win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * kh * kw, oh * ow)
    return np.matmul(w.reshape(w.shape[0], -1), col).reshape(n, w.shape[0], oh, ow)


@pytest.mark.parametrize("mode", MODES)
def test_matmul_is_bit_equal_to_the_fp16_in_fp32_accumulate_reference(mode):
    a, b = rand(17, 33), rand(33, 9, seed=1)
    ascend(mode)
    got = MatMul(Tensor(a), Tensor(b)).asnumpy()
    want = reference(np.matmul, mode, a, b)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    if mode != "must_keep_origin_dtype":  # the rounding really happened
        assert not np.array_equal(got, a @ b)


def test_batch_matmul_with_transposes_is_bit_equal():
    a, b = rand(3, 8, 5), rand(3, 6, 8, seed=2)
    ascend("force_fp16")
    got = BatchMatMul(Tensor(a), Tensor(b), transpose_a=True, transpose_b=True).asnumpy()
    want = h(np.matmul(h(a).swapaxes(-1, -2), h(b).swapaxes(-1, -2)))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("stride,pad", [(1, 0), (2, 1)])
@pytest.mark.parametrize("mode", ["force_fp16", "allow_fp32_to_fp16"])
def test_conv2d_is_bit_equal_to_numpys_im2col_reference(mode, stride, pad):
    x, w = rand(2, 3, 10, 9), rand(5, 3, 3, 3, seed=3)
    ascend(mode)
    attrs = {"out_channel": 5, "kernel_size": 3, "stride": stride}
    if pad:
        attrs.update(pad_mode="pad", pad=pad)
    got = Conv2D(Tensor(x), Tensor(w), **attrs).asnumpy()
    want = reference(lambda x, w: im2col_conv(x, w, stride, pad), mode, x, w)
    np.testing.assert_array_equal(got, want)


def test_float16_operands_accumulate_in_float32_not_float16():
    # 4096 ones of float16: a float16 accumulator would stop at 2048
    a = np.ones((1, 4096), np.float16)
    b = np.ones((4096, 1), np.float16)
    ascend("must_keep_origin_dtype")
    got = MatMul(Tensor(a), Tensor(b)).asnumpy()
    assert got.dtype == np.float16 and float(got[0, 0]) == 4096.0


def test_integers_and_the_cpu_target_are_untouched():
    a, b = rand(4, 6), rand(6, 3, seed=4)
    cpu = MatMul(Tensor(a), Tensor(b)).asnumpy()
    ascend("force_fp16")
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(MatMul(Tensor(ints), Tensor(ints.T.copy())).asnumpy(),
                                  ints @ ints.T)
    set_context(device_target="CPU")
    np.testing.assert_array_equal(MatMul(Tensor(a), Tensor(b)).asnumpy(), cpu)


def test_graph_mode_is_not_stale_across_device_targets():
    from ms_graph import jit

    a, b = rand(8, 8), rand(8, 8, seed=5)
    f = jit(lambda x, y: F.matmul(x, y) * 2)
    cpu = f(Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_array_equal(f(Tensor(a), Tensor(b)).asnumpy(), cpu)
    ascend("force_fp16")
    emu = f(Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_array_equal(emu, h(h(a) @ h(b)) * 2)
    set_context(device_target="CPU")
    np.testing.assert_array_equal(f(Tensor(a), Tensor(b)).asnumpy(), cpu)


def test_it_says_it_is_an_emulation():
    backend = registry.load().backend("Ascend")
    assert isinstance(backend, AscendEmulationBackend)
    assert "emulation, not hardware" in repr(backend)
    cube._announced.clear()
    ascend("force_fp16")
    with pytest.warns(EmulationWarning, match="EMULATION.*no Ascend hardware"):
        MatMul(Tensor(rand(2, 2)), Tensor(rand(2, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", EmulationWarning)
        MatMul(Tensor(rand(2, 2)), Tensor(rand(2, 2)))  # once per process


def test_context_checks_the_ascend_config():
    with pytest.raises(ValueError, match="precision_mode must be one of"):
        set_context(ascend_config={"precision_mode": "fp8"})
    with pytest.raises(ValueError, match="key 'op_debug_level' is not supported"):
        set_context(ascend_config={"op_debug_level": 1})
    with pytest.raises(ValueError, match="device_id 8 does not exist"):
        set_context(device_target="Ascend", device_id=8)
    assert get_context("device_target") == "CPU"


def test_lenet5_in_allow_fp32_to_fp16_tracks_the_fp32_run():
    """12 steps of the seed's LeNet5 on fixed data: the emulated run stays within 2% of
    the float32 run's loss at every step (and differs from it: the emulation is on)."""
    losses = {}
    for target in ("CPU", "Ascend"):
        set_context(device_target=target,
                    ascend_config={"precision_mode": "allow_fp32_to_fp16"})
        losses[target] = _lenet_losses(steps=12)
    cpu, emu = np.array(losses["CPU"]), np.array(losses["Ascend"])
    assert cpu[-1] < cpu[0]  # it trains
    np.testing.assert_allclose(emu, cpu, rtol=2e-2)
    assert not np.array_equal(emu, cpu)


def _lenet_losses(steps):
    from ms_nn.containers import SequentialCell
    from ms_nn.layers import Conv2d, Dense, Flatten, MaxPool2d, ReLU
    from ms_nn.loss import SoftmaxCrossEntropyWithLogits
    from ms_nn.optim import Momentum
    from ms_nn.wrap import TrainOneStepCell, WithLossCell
    from ms_tensor.seed import set_seed

    set_seed(0)
    net = SequentialCell([
        Conv2d(1, 6, 5, pad_mode="valid"), ReLU(), MaxPool2d(2, 2),
        Conv2d(6, 16, 5, pad_mode="valid"), ReLU(), MaxPool2d(2, 2), Flatten(),
        Dense(400, 120), ReLU(), Dense(120, 84), ReLU(), Dense(84, 10)])
    loss = SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = TrainOneStepCell(WithLossCell(net, loss), Momentum(net.trainable_params(), 0.01, 0.9))
    rng = np.random.default_rng(7)
    x = Tensor(rng.standard_normal((8, 1, 32, 32)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, 8).astype(np.int32))
    return [float(step(x, y).asnumpy()) for _ in range(steps)]
