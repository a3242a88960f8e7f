"""``convert``: an ONNX file -> a microspore package directory (MindConverter's role)."""

from __future__ import annotations

import os

from ms_lite.onnx.importer import ImportResult, UnsupportedOnnxError, import_onnx

__all__ = ["convert"]


def convert(model_file, out_dir: str, input_shapes: dict | None = None,
            class_name: str = "Model") -> ImportResult:
    """Convert ``model_file`` into ``out_dir``: ``model.py``, ``model.safetensors``,
    ``__init__.py`` and ``report.txt`` (every node and what it became).

    When some operators cannot be converted, only ``report.txt`` is written (it lists them
    by node name first) and ``UnsupportedOnnxError`` is raised: a network with a hole in it
    is never generated.
    """
    from ms_lite.onnx.pygen import write_package

    result = import_onnx(model_file, input_shapes, strict=False)
    os.makedirs(out_dir, exist_ok=True)
    if result.graph is None:
        with open(os.path.join(out_dir, "report.txt"), "w") as f:
            f.write(result.report())
        raise UnsupportedOnnxError(result)
    source = os.path.basename(os.fspath(model_file)) if isinstance(model_file, (str, os.PathLike)) \
        else "ONNX"
    write_package(result.graph, out_dir, class_name, source, report=result.report())
    return result
