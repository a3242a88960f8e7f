"""Colour, tone, warp, crop and blur transforms against MindSpore 2.10's own outputs.

``data/vision_mindspore210.npz`` holds the outputs real MindSpore 2.10 (CPU) gave for the
calls in ``data/vision_mindspore210_make.py`` (run with MindSpore installed); MindSpore is
not needed to run these tests. Integer outputs are exact;
float outputs agree to float32 rounding.
"""

import os

import numpy as np
import pytest

from ms_data import vision as V
from ms_data.transforms import PadEnd, Unique
from ms_data.vision import Border, Inter, SliceMode

REF = np.load(os.path.join(os.path.dirname(__file__), "data", "vision_mindspore210.npz"))
IMG, G, F, B, W = REF["IMG"], REF["G"], REF["F"], REF["B"], REF["W"]
PTS = ([[0, 0], [8, 0], [8, 6], [0, 6]], [[1, 1], [7, 0], [8, 5], [0, 6]])
PTS_B = ([[0, 0], [19, 0], [19, 15], [0, 15]], [[1, 2], [18, 0], [19, 13], [2, 15]])

EXACT = {
    "bright": (V.AdjustBrightness(1.7), IMG), "bright2": (V.AdjustBrightness(0.4), IMG),
    "contrast": (V.AdjustContrast(1.6), IMG), "contrast2": (V.AdjustContrast(0.3), IMG),
    "sat": (V.AdjustSaturation(1.5), IMG), "sat2": (V.AdjustSaturation(0.2), IMG),
    "hue": (V.AdjustHue(0.2), IMG), "hue2": (V.AdjustHue(-0.35), IMG),
    "gamma": (V.AdjustGamma(0.5, 1.2), IMG), "gamma2": (V.AdjustGamma(2.2), IMG),
    "sharp": (V.AdjustSharpness(2.0), IMG), "sharp2": (V.AdjustSharpness(0.3), IMG),
    "autoc": (V.AutoContrast(), IMG), "autoc2": (V.AutoContrast(10.0, [5]), IMG),
    "equal": (V.Equalize(), IMG), "equalg": (V.Equalize(), G),
    "invert": (V.Invert(), IMG), "post": (V.Posterize(3), IMG),
    "sol": (V.Solarize(100), IMG), "sol2": (V.Solarize((50, 150)), IMG),
    "crop": (V.Crop((1, 2), (4, 5)), IMG),
    "padts": (V.PadToSize((10, 12)), IMG),
    "padts2": (V.PadToSize((10, 12), (1, 2), 7, Border.REFLECT), IMG),
    "rot30": (V.Rotate(30), IMG), "rot30b": (V.Rotate(30, Inter.BILINEAR), IMG),
    "rot45e": (V.Rotate(45, expand=True), IMG), "rot90e": (V.Rotate(90, expand=True), IMG),
    "affine": (V.Affine(15, (0.5, -0.3), 1.2, (5.0, 3.0)), IMG),
    "affineb": (V.Affine(-20, (0, 0), 0.8, 10.0, Inter.BILINEAR, 9), IMG),
    "persp": (V.Perspective(*PTS, Inter.BILINEAR), IMG),
    "perspn": (V.Perspective(*PTS, Inter.NEAREST), IMG),
    "gblur": (V.GaussianBlur(3, 1.0), IMG), "gblur2": (V.GaussianBlur((5, 3), (1.5, 0.7)), IMG),
    "gblur3": (V.GaussianBlur(3), IMG),
    "erase": (V.Erase(1, 2, 3, 4, (10, 20, 30)), IMG),
    "totype": (V.ToType(np.float32), IMG),
    "lintr": (V.LinearTransformation(np.eye(6, dtype=np.float32) * 2, np.ones(6, np.float32)),
              np.arange(6, dtype=np.float32).reshape(1, 2, 3)),
    "padend": (PadEnd([5], 9), np.array([1, 2, 3])),
    "padend2": (PadEnd([3, 4], -1), np.ones((2, 2), np.int32)),
    "sol90": (V.Solarize((90, 90)), IMG), "gammaf": (V.AdjustGamma(0.5, 1.2), F),
    "rotf": (V.Rotate(30, Inter.BILINEAR), F), "affg": (V.Affine(15, (0.1, 0.1), 1.1, 5.0), G),
    "blurf": (V.GaussianBlur(3, 1.0), F), "autocg": (V.AutoContrast(), G),
    "invf": (V.Invert(), F), "brightf": (V.AdjustBrightness(1.5), F),
    "contrastf": (V.AdjustContrast(1.5), F), "satf": (V.AdjustSaturation(1.5), F),
    "sharpf": (V.AdjustSharpness(1.5), F), "solf": (V.Solarize(0.5), F),
    "perspf": (V.Perspective(*PTS), F), "rot2d": (V.Rotate(30), G),
    "blur2d": (V.GaussianBlur(3), G), "sharp2d": (V.AdjustSharpness(2.0), G),
    "bright2d": (V.AdjustBrightness(1.5), G), "gamma2d": (V.AdjustGamma(2.0), G),
    "pad2d": (V.PadToSize((9, 10)), G), "crop2d": (V.Crop((1, 1), 3), G),
    "cubic_rot": (V.Rotate(30, Inter.BICUBIC), B),
    "cubic_aff": (V.Affine(10, (0.1, 0), 0.9, 5.0, Inter.BICUBIC), B),
    "cubic_rotf": (V.Rotate(17, Inter.BICUBIC), F),
    "cubic_persp": (V.Perspective(*PTS_B, Inter.BICUBIC), B),
    "area_rot": (V.Rotate(30, Inter.AREA), B), "linear_rot": (V.Rotate(30, Inter.BILINEAR), B),
    "hue_wide": (V.AdjustHue(0.1), W), "sat_wide": (V.AdjustSaturation(1.2), W),
    "contrast_wide": (V.AdjustContrast(0.9), W), "sharp_wide": (V.AdjustSharpness(1.3), W),
    "gray_wide": (V.ConvertColor(V.ConvertMode.COLOR_RGB2GRAY), W),
    "autoc_wide": (V.AutoContrast(5.0), W), "gamma_wide": (V.AdjustGamma(0.6, 1.1), W),
}


@pytest.mark.parametrize("key", sorted(EXACT))
def test_equals_mindspore(key):
    op, x = EXACT[key]
    got = np.asarray(op(x))
    assert got.dtype == REF[key].dtype and got.shape == REF[key].shape
    if got.dtype.kind == "f":  # float32 arithmetic in another order: last-bit differences
        np.testing.assert_allclose(got, REF[key], rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, REF[key])


def test_float_hsv_conversions_match_mindspore():
    for key, op in (("rgb2hsv", V.RgbToHsv(is_hwc=True)), ("hsv2rgb", V.HsvToRgb(is_hwc=True))):
        got = op(F)
        assert got.dtype == REF[key].dtype == np.float64
        np.testing.assert_allclose(got, REF[key], atol=1e-6)
    chw = V.RgbToHsv()(np.ascontiguousarray(F.transpose(2, 0, 1)))
    np.testing.assert_allclose(chw.transpose(1, 2, 0), REF["rgb2hsv"], atol=1e-6)


def test_resized_crop_equals_mindspore():
    # Bit for bit since the first and last rows keep their fraction, as OpenCV's do.
    np.testing.assert_array_equal(V.ResizedCrop(1, 2, 4, 5, (6, 8))(IMG), REF["rcrop"])


def test_five_and_ten_crop_match_mindspore_and_keep_pil():
    from PIL import Image

    np.testing.assert_array_equal(np.stack(V.FiveCrop(3)(IMG)), REF["five"])
    np.testing.assert_array_equal(np.stack(V.TenCrop((3, 4))(IMG)), REF["ten"])
    crops = V.TenCrop(3, True)(Image.fromarray(IMG))
    assert all(isinstance(c, Image.Image) for c in crops)
    np.testing.assert_array_equal(np.stack([np.asarray(c) for c in crops]), REF["tenv"])


@pytest.mark.parametrize("key,op", [("slice", V.SlicePatches(2, 2)),
                                    ("slicedrop", V.SlicePatches(2, 4, SliceMode.DROP)),
                                    ("slicefill", V.SlicePatches(3, 2, fill_value=5))])
def test_slice_patches_match_mindspore(key, op):
    patches = op(IMG)
    assert [p.shape for p in patches] == [tuple(s) for s in REF[key + "_shapes"]]
    np.testing.assert_array_equal(np.concatenate([p.ravel() for p in patches]), REF[key])


def _recorder():
    """The recording script as a module (its calls, with ``V`` passed in, are shared)."""
    import importlib.util

    path = os.path.join(os.path.dirname(__file__), "data", "vision_mindspore210_make.py")
    spec = importlib.util.spec_from_file_location("vision_mindspore210_make", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pil_inputs_take_mindspores_pillow_path():
    from PIL import Image

    for key, op in _recorder().pil_cases(V).items():
        got = op(Image.fromarray(W))
        assert isinstance(got, Image.Image), key
        np.testing.assert_array_equal(np.asarray(got), REF[key], err_msg=key)


def test_pil_images_flow_between_the_operations_of_a_map():
    import ms_data

    got = _recorder().pil_pipeline(ms_data, V, W)
    assert got.dtype == np.float32 and got.shape == (3, 16, 16)
    np.testing.assert_array_equal(got, REF["pil_pipeline"])


def test_unique_matches_mindspore():
    out, idx, cnt = Unique()(np.array([[5, 3], [5, 1], [3, 3]]))
    for got, key in ((out, "uniq0"), (idx, "uniq1"), (cnt, "uniq2")):
        np.testing.assert_array_equal(got, REF[key])
