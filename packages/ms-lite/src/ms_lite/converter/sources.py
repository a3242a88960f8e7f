"""Reading the converter's input models into a lite ``Graph``.

MINDIR files are read by ``ms_lite.mindir`` (the MindSpore-format reader and writer)
when that module offers ``load_graph(path) -> Graph``; until then, and for files that
``ms_lite.export`` wrote in the lite container, the .ms reader reads them.
"""

from __future__ import annotations

import os

from ms_lite.ir import Graph

__all__ = ["read_model", "mindir_codec"]


def mindir_codec():
    """``(save_graph, load_graph)`` of ``ms_lite.mindir``, or None where it has none."""
    try:
        from ms_lite import mindir
    except ImportError:
        return None
    save, load = getattr(mindir, "save_graph", None), getattr(mindir, "load_graph", None)
    return (save, load) if save is not None and load is not None else None


def read_model(fmk: str, path) -> Graph:
    """The model at ``path`` of framework ``fmk`` ("MINDIR" or "ONNX") as a Graph."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"converter: model file {path!r} does not exist")
    if fmk == "ONNX":
        from ms_lite.onnx.importer import import_onnx

        return import_onnx(path).graph
    if fmk == "MINDIR":
        from ms_lite.format import load
        from ms_lite.format.writer import MAGIC

        with open(path, "rb") as f:
            lite_container = f.read(len(MAGIC)) == MAGIC
        codec = mindir_codec()
        if lite_container or codec is None:
            return load(path)[0]
        return codec[1](path)
    raise ValueError(f"converter: fmk {fmk!r} is not supported; use MINDIR or ONNX")
