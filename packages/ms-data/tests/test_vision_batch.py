"""Batch forms against row-by-row calls, Cython kernels against numpy references, fusion,
random operations under a generator, and error messages."""

import numpy as np
import pytest

from ms_data import transforms as T
from ms_data import vision as V
from ms_data.kernels import load
from ms_data.vision import Inter
from ms_data.vision import resize_tables as rt
from ms_data.vision.pointwise import pointwise_ref
from ms_data.vision.resize import resize_nhwc

RNG = np.random.default_rng(7)
BATCH_U8 = RNG.integers(0, 256, (5, 13, 11, 3), dtype=np.uint8)
BATCH_F32 = RNG.random((4, 9, 14, 2), dtype=np.float32)

DETERMINISTIC = [
    V.Resize((32, 32)), V.Resize((6, 20), Inter.NEAREST), V.Resize((7, 5), Inter.BICUBIC),
    V.Resize((5, 4), Inter.AREA), V.Resize(8), V.Rescale(1 / 255, 0.5),
    V.Normalize([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), V.HWC2CHW(), V.ToTensor(), V.CenterCrop(6),
    V.Pad((1, 2, 3, 4), fill_value=9), V.Pad(2, padding_mode=V.Border.SYMMETRIC),
    V.ConvertColor(V.ConvertMode.COLOR_BGR2RGB), V.Grayscale(3), T.TypeCast(np.float16),
]


@pytest.mark.parametrize("op", DETERMINISTIC, ids=repr)
def test_batch_call_equals_rows(op):
    batch = op.batch_call(BATCH_U8, None)
    rows = np.stack([op(img) for img in BATCH_U8])
    np.testing.assert_array_equal(batch, rows)


@pytest.mark.parametrize("mode", [Inter.NEAREST, Inter.BILINEAR])
@pytest.mark.parametrize("x", [BATCH_U8, BATCH_F32, BATCH_U8[..., :1]], ids=["u8", "f32", "u8c1"])
@pytest.mark.parametrize("size", [(32, 32), (4, 3), (13, 11), (20, 7)])
def test_resize_kernel_matches_reference(mode, x, size):
    if load("_resize") is None:
        pytest.skip("Cython kernels not built")
    fast = resize_nhwc("Resize", x, *size, mode)
    ref = (rt.nearest_ref if mode == Inter.NEAREST else rt.linear_ref)(x, *size)
    np.testing.assert_array_equal(fast, ref)


def test_fuse_merges_the_seed_chain_and_changes_no_bit():
    ops = [V.Resize((32, 32)), V.Rescale(1 / 255, 0), V.Rescale(1 / 0.3081, -0.1307 / 0.3081),
           V.HWC2CHW(), T.TypeCast(np.float32)]
    fused = V.fuse(ops)
    assert len(fused) == 1 and isinstance(fused[0], V.FusedPointwise)
    assert fused[0].resize is ops[0] and fused[0].cast == np.float32
    one_by_one = BATCH_U8
    for op in ops:
        one_by_one = op.batch_call(one_by_one, None)
    together = BATCH_U8
    for op in fused:
        together = op.batch_call(together, None)
    assert together.shape == (5, 3, 32, 32) and together.dtype == np.float32
    np.testing.assert_array_equal(together, one_by_one)


FUSIBLE_CHAINS = [
    [V.Resize((32, 32)), V.Rescale(1 / 255, 0), V.HWC2CHW()],
    [V.Resize((7, 40)), V.Normalize([10.0, 20.0, 30.0], [2.0, 3.0, 4.0]), T.TypeCast(np.float16)],
    [V.Resize((13, 11)), V.Rescale(0.5, 1.0)],  # same size: the resize is a copy
    [V.Resize(9), V.ToTensor()],
    [V.Rescale(1 / 255, 0), V.Normalize([0.5] * 3, [0.25] * 3), V.HWC2CHW(),
     T.TypeCast(np.int32)],
    [V.Resize((16, 16), Inter.NEAREST), V.Rescale(2.0, -1.0), V.Rescale(0.5, 0.0)],
]


@pytest.mark.parametrize("ops", FUSIBLE_CHAINS, ids=lambda ops: "-".join(map(repr, ops)))
@pytest.mark.parametrize("x", [BATCH_U8, BATCH_U8[..., :1], BATCH_U8[..., 0], BATCH_F32[..., :1]],
                         ids=["u8c3", "u8c1", "u8hw", "f32c1"])
def test_fused_chains_equal_one_by_one(ops, x):
    if any(isinstance(o, V.Normalize) for o in ops) and x.shape[-1] != 3 and x.ndim == 4:
        pytest.skip("Normalize here has three channels")
    if x.ndim == 3 and any(isinstance(o, V.Normalize) for o in ops):
        pytest.skip("Normalize here has three channels")
    one_by_one = x
    for op in ops:
        one_by_one = op.batch_call(one_by_one, None)
    fused = V.fuse(ops)
    assert len(fused) < len(ops)
    together = x
    for op in fused:
        together = op.batch_call(together, None)
    assert together.dtype == one_by_one.dtype
    np.testing.assert_array_equal(together, one_by_one)
    rows = x
    for op in fused:
        rows = np.stack([op(r) for r in rows])
    np.testing.assert_array_equal(rows, one_by_one)


def test_lookup_kernel_matches_reference_for_every_uint8_value():
    if load("_lut") is None:
        pytest.skip("Cython kernels not built")
    x = np.arange(256 * 3, dtype=np.uint16).astype(np.uint8).reshape(4, 8, 8, 3)
    op = V.Normalize([0.1, 200.0, 33.3], [0.7, 1.3, 1e-3])
    steps = op.steps(3)
    np.testing.assert_array_equal(op.batch_call(x), pointwise_ref(x, steps))


def test_kernel_threads_follow_runtime_num_threads():
    from ms_data import kernels
    from ms_tensor import reset_context, set_context

    set_context(runtime_num_threads=3)
    try:
        assert kernels.threads_for(1 << 22) == 3
        assert kernels.threads_for(10) == 1
    finally:
        reset_context()


def test_large_batches_take_the_threaded_path_with_the_same_numbers():
    from ms_data import kernels

    x = RNG.integers(0, 256, (1100, 28, 28, 1), dtype=np.uint8)
    ops = [V.Resize((32, 32)), V.Rescale(1 / 255, 0), V.HWC2CHW()]
    assert kernels.threads_for(1100 * 32 * 32) > 1 or kernels._CPUS == 1
    [fused] = V.fuse(ops)
    one_by_one = x
    for op in ops:
        one_by_one = op.batch_call(one_by_one, None)
    np.testing.assert_array_equal(fused.batch_call(x), one_by_one)


def test_fuse_keeps_lone_ops_and_order():
    lone = [V.Rescale(2, 0), V.Resize(4), T.TypeCast(np.int32)]
    assert V.fuse(lone) == lone
    ops = [V.HWC2CHW(), V.Rescale(2, 0)]  # arithmetic after a layout change is not fused
    assert V.fuse(ops) == ops


def test_pointwise_kernel_matches_reference():
    steps = V.Rescale(1 / 255, 0).steps(3) + V.Normalize([0.1, 0.2, 0.3], [0.5, 0.6, 0.7]).steps(3)
    fused = V.FusedPointwise([V.Rescale(1 / 255, 0), V.Normalize([0.1, 0.2, 0.3],
                                                                 [0.5, 0.6, 0.7])])
    np.testing.assert_array_equal(fused.batch_call(BATCH_U8), pointwise_ref(BATCH_U8, steps))


@pytest.mark.parametrize("op", [
    V.RandomHorizontalFlip(0.5), V.RandomVerticalFlip(0.5), V.RandomCrop(8, padding=2),
    V.RandomResizedCrop((6, 6)), V.RandomRotation(40),
    T.RandomApply([V.RandomHorizontalFlip(1.0)]), T.RandomChoice([V.Rescale(2, 0),
                                                                  V.Rescale(3, 0)]),
], ids=repr)
def test_random_ops_repeat_under_the_same_generator(op):
    a = op.batch_call(BATCH_U8, np.random.default_rng(3))
    b = op.batch_call(BATCH_U8, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    assert op.is_random


def test_flip_rows_are_flipped_or_kept():
    out = V.RandomHorizontalFlip(0.5).batch_call(BATCH_U8, np.random.default_rng(1))
    flipped = [np.array_equal(o, x[:, ::-1]) for o, x in zip(out, BATCH_U8)]
    kept = [np.array_equal(o, x) for o, x in zip(out, BATCH_U8)]
    assert all(f or k for f, k in zip(flipped, kept)) and any(flipped) and any(kept)
    assert np.array_equal(V.RandomVerticalFlip(1.0)(BATCH_U8[0]), BATCH_U8[0][::-1])


def test_random_crop_takes_windows_of_the_padded_image():
    out = V.RandomCrop((4, 5)).batch_call(BATCH_U8, np.random.default_rng(2))
    assert out.shape == (5, 4, 5, 3)
    for o, x in zip(out, BATCH_U8):
        windows = np.lib.stride_tricks.sliding_window_view(x, (4, 5, 3))
        assert (windows == o).all(axis=(-3, -2, -1)).any()
    assert V.RandomCrop(20, pad_if_needed=True)(BATCH_U8[0]).shape == (20, 20, 3)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: V.Resize((3, 3))(np.zeros(5, np.uint8)), ValueError, r"Resize: .*got shape \(5,\)"),
    (lambda: V.Resize((0, 3)), ValueError, r"Resize: size values"),
    (lambda: V.Resize((3, 3))(np.array([["a"]])), TypeError, r"Resize: .*dtype <U1"),
    (lambda: V.HWC2CHW()(np.zeros((2, 3, 4, 5))), ValueError, r"HWC2CHW: .*\(2, 3, 4, 5\)"),
    (lambda: V.Normalize([1, 2], [1, 1])(BATCH_U8[0]), ValueError,
     r"Normalize: mean has 2 values but the image has 3 channels"),
    (lambda: V.RandomCrop(20)(BATCH_U8[0]), ValueError, r"RandomCrop: crop size \(20, 20\)"),
    (lambda: V.Resize(4, Inter.PILCUBIC)(BATCH_F32[0]), TypeError, r"Resize: Inter.PILCUBIC"),
    (lambda: V.RandomHorizontalFlip(2), ValueError, r"RandomHorizontalFlip: prob"),
    (lambda: V.ConvertColor(V.ConvertMode.COLOR_BGRA2BGR)(BATCH_U8[0]), ValueError,
     r"ConvertColor: COLOR_BGRA2BGR needs images with 4 channel"),
])
def test_errors_name_the_op_and_shape(call, error, match):
    with pytest.raises(error, match=match):
        call()
