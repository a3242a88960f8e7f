"""MindSpore Lite's Python converter: ``Converter().convert(fmk_type, model_file,
output_file, config_file=...)`` writes ``output_file + ".ms"``."""

from __future__ import annotations

import enum
import os

from ms_lite.converter.config import read_config
from ms_lite.converter.pipeline import finalize, optimize
from ms_lite.converter.sources import read_model
from ms_lite.format import save

__all__ = ["Converter", "FmkType", "ConversionResult"]


class FmkType(enum.Enum):
    """The frameworks MindSpore Lite's converter names (MINDIR and ONNX are read here)."""

    TF = 0
    CAFFE = 1
    ONNX = 2
    MINDIR = 3
    TFLITE = 4
    PYTORCH = 5


class ConversionResult:
    """What ``convert`` did: the output path, its size, the report, the final graph."""

    def __init__(self, path, size, report, graph):
        self.path, self.size, self.report, self.graph = path, size, report, graph

    def __repr__(self) -> str:
        return f"ConversionResult({self.path!r}, {self.size} bytes, {len(self.graph.nodes)} nodes)"


class Converter:
    """Convert a MINDIR or ONNX model to a lite model.

    Attributes (MindSpore Lite's): ``weight_fp16`` (store float32 weights as float16),
    ``optimize`` (``"general"``: run the passes; ``"none"``: only translate).
    """

    def __init__(self):
        self.weight_fp16 = False
        self.optimize = "general"

    def convert(self, fmk_type, model_file, output_file, weight_file: str = "",
                config_file: str = "") -> ConversionResult:
        """Write ``output_file + ".ms"`` and ``output_file + ".ms.report.txt"``.

        Raises:
            ValueError: an unsupported ``fmk_type`` or option; FileNotFoundError: no
                ``model_file``; the readers' errors naming the file.
        """
        from ms_lite.quant.convert import apply_precision

        fmk = fmk_type.name if isinstance(fmk_type, FmkType) else str(fmk_type).upper()
        if self.optimize not in ("general", "none"):
            raise ValueError(f"Converter.optimize must be 'general' or 'none', got "
                             f"{self.optimize!r}")
        graph = read_model(fmk, model_file)
        if self.optimize == "general":
            graph, report = optimize(graph)
        else:
            from ms_lite.converter.report import Report

            report = Report(graph)
        cfg = read_config(config_file) if config_file else None
        graph = apply_precision(graph, report, fp16=self.weight_fp16, config=cfg)
        if self.optimize == "general":
            graph = finalize(graph, report)
        path = os.fspath(output_file) + ".ms"
        meta = {"producer": "microspore_lite.Converter", "fmk": fmk,
                "source": os.path.basename(os.fspath(model_file)),
                "fp16": bool(self.weight_fp16), "quant_type": cfg.quant_type if cfg else ""}
        size = save(graph, path, meta)
        with open(path + ".report.txt", "w", encoding="utf-8") as f:
            f.write(report.text() + "\n")
        return ConversionResult(path, size, report, graph)
