"""ONNX LSTM and GRU import unrolled and match onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import helper  # noqa: E402

from ms_lite.onnx.importer import UnsupportedOnnxError, import_onnx  # noqa: E402

R = np.random.default_rng(0)
SEQ, BATCH, IN, HID = 4, 2, 3, 5


def _f32(*shape):
    return (R.standard_normal(shape) * 0.5).astype(np.float32)


def _weights(gates, n_dir):
    return {"W": _f32(n_dir, gates * HID, IN), "R": _f32(n_dir, gates * HID, HID),
            "B": _f32(n_dir, 2 * gates * HID)}


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_lstm_matches_onnxruntime(check_onnx, direction):
    n_dir = 2 if direction == "bidirectional" else 1
    inits = {**_weights(4, n_dir), "h0": _f32(n_dir, BATCH, HID)}
    x = {"x": _f32(SEQ, BATCH, IN), "c0": _f32(n_dir, BATCH, HID)}
    lstm = helper.make_node("LSTM", ["x", "W", "R", "B", "", "h0", "c0"], ["y", "yh", "yc"],
                            name="lstm", hidden_size=HID, direction=direction)
    check_onnx([lstm], x, ["y", "yh", "yc"], inits, opset=14)


@pytest.mark.parametrize("direction,lbr", [("forward", 0), ("forward", 1),
                                           ("bidirectional", 1), ("reverse", 0)])
def test_gru_matches_onnxruntime(check_onnx, direction, lbr):
    n_dir = 2 if direction == "bidirectional" else 1
    gru = helper.make_node("GRU", ["x", "W", "R", "B"], ["y", "yh"], name="gru",
                           hidden_size=HID, direction=direction, linear_before_reset=lbr)
    check_onnx([gru], {"x": _f32(SEQ, BATCH, IN)}, ["y", "yh"], _weights(3, n_dir), opset=14)


def test_only_the_last_state_and_no_bias(check_onnx):
    w = _weights(4, 1)
    del w["B"]
    lstm = helper.make_node("LSTM", ["x", "W", "R"], ["", "yh"], name="last", hidden_size=HID)
    check_onnx([lstm], {"x": _f32(1, BATCH, IN)}, ["yh"], w, opset=14)


def test_untranslatable_recurrences_are_named(onnx_tools):
    make_model, _, _ = onnx_tools
    lstm = helper.make_node("LSTM", ["x", "W", "R"], ["y"], name="clipped", hidden_size=HID,
                            clip=1.0)
    m = make_model([lstm], {"x": _f32(SEQ, BATCH, IN)}, ["y"], _weights(4, 1), opset=14)
    with pytest.raises(UnsupportedOnnxError, match="node 'clipped' \\(LSTM\\).*'clip'"):
        import_onnx(m)
