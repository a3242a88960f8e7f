"""ONNX in and out.

- ``import_onnx(path)``: an ONNX model -> a lite ``Graph`` of registry operators, with a
  report of every node (``microspore lite convert --fmk=ONNX`` reads models this way);
- ``convert(path, out_dir)``: MindConverter's role, ``model.py`` + ``model.safetensors`` +
  ``report.txt`` (``microspore convert model.onnx --out mypkg/``);
- ``export_onnx(graph, path)``: a lite ``Graph`` -> ONNX (opset ``OPSET``) for onnxruntime.

Translators of both directions are registry entries (``ms_register_onnx``), so a plugin's
operator imports and exports once its plugin registers them. Names load on first use: onnx
itself is imported only by the functions that need it.
"""

import importlib

_LAZY = {
    "import_onnx": "ms_lite.onnx.importer", "ImportResult": "ms_lite.onnx.importer",
    "UnsupportedOnnxError": "ms_lite.onnx.importer", "OnnxFileError": "ms_lite.onnx.importer",
    "convert": "ms_lite.onnx.convert", "export_onnx": "ms_lite.onnx.export",
    "UnsupportedExportError": "ms_lite.onnx.export", "OPSET": "ms_lite.onnx.export",
    "IR_VERSION": "ms_lite.onnx.export", "generate_source": "ms_lite.onnx.pygen",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'ms_lite.onnx' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
