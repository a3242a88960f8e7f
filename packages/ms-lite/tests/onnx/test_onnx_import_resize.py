"""ONNX Resize and Upsample import as Gather/Mul/Add and match onnxruntime in every mode."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import helper  # noqa: E402

from ms_lite.onnx.importer import UnsupportedOnnxError, import_onnx  # noqa: E402

X = {"x": np.random.default_rng(0).standard_normal((2, 3, 5, 6)).astype(np.float32)}
_EMPTY = np.array([], np.float32)


def _resize(ins=("x", "roi", "scales"), **attrs):
    return helper.make_node("Resize", list(ins), ["y"], name="up", **attrs)


@pytest.mark.parametrize("mode,coords,nearest", [
    ("nearest", "asymmetric", "floor"), ("nearest", "half_pixel", "round_prefer_floor"),
    ("nearest", "align_corners", "round_prefer_ceil"), ("nearest", "half_pixel", "ceil"),
    ("linear", "half_pixel", None), ("linear", "pytorch_half_pixel", None),
    ("linear", "align_corners", None), ("linear", "asymmetric", None),
    ("cubic", "half_pixel", None), ("cubic", "align_corners", None)])
@pytest.mark.parametrize("scales", [(1, 1, 2, 1.5), (1, 1, 0.6, 0.5)])
def test_resize_by_scales_matches_onnxruntime(check_onnx, mode, coords, nearest, scales):
    attrs = {"mode": mode, "coordinate_transformation_mode": coords}
    if nearest:
        attrs["nearest_mode"] = nearest
    r = check_onnx([_resize(**attrs)], X, ["y"],
                   {"roi": _EMPTY, "scales": np.array(scales, np.float32)}, opset=13)
    assert {n.op for n in r.graph.nodes} <= {"Gather", "Mul", "Add"}


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_by_sizes_and_axes(check_onnx, mode):
    check_onnx([_resize(("x", "", "", "sizes"), mode=mode, cubic_coeff_a=-0.5,
                        exclude_outside=int(mode == "cubic"))], X, ["y"],
               {"sizes": np.array([2, 3, 9, 4], np.int64)}, opset=13)
    check_onnx([_resize(("x", "", "", "sizes"), mode=mode, axes=[3])], X, ["y"],
               {"sizes": np.array([11], np.int64)}, opset=18)


def test_opset_10_resize_and_opset_9_upsample(check_onnx):
    scales = {"scales": np.array([1, 1, 2, 3], np.float32)}
    check_onnx([_resize(("x", "scales"), mode="nearest")], X, ["y"], scales, opset=10)
    check_onnx([helper.make_node("Upsample", ["x", "scales"], ["y"], mode="linear")], X,
               ["y"], scales, opset=9)


def test_untranslatable_resizes_are_named(onnx_tools):
    make_model, _, _ = onnx_tools
    m = make_model([_resize(mode="linear",
                            coordinate_transformation_mode="tf_crop_and_resize")], X, ["y"],
                   {"roi": _EMPTY, "scales": np.array([1, 1, 2, 2], np.float32)}, opset=13)
    with pytest.raises(UnsupportedOnnxError, match="node 'up' \\(Resize\\).*tf_crop_and_resize"):
        import_onnx(m)
