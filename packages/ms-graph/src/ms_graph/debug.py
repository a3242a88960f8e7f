"""``save_graphs``: the IR before and after each pass, as text and as Graphviz DOT.

With ``set_context(save_graphs=True, save_graphs_path=DIR)`` every compiled graph is
written to ``DIR`` as ``<graph>_<NN>_<stage>.ir`` (``Graph.text()``) and ``.dot``
(``Graph.dot()``), ``NN`` counting the stages in order: ``00_captured``, then one file
pair after each pass (``01_after_cse``, ...). Names are made safe for file systems.
"""

from __future__ import annotations

import os
import re

from ms_tensor import context

__all__ = ["save_graphs_dir", "GraphDumper"]


def save_graphs_dir() -> str | None:
    """The directory graphs are saved to, or None when saving is off."""
    if not context.get_context("save_graphs"):
        return None
    return context.get_context("save_graphs_path") or "."


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "graph"


class GraphDumper:
    """Writes the successive stages of one graph's compilation into ``directory``."""

    def __init__(self, directory: str, name: str):
        self.directory = directory
        self.name = _safe(name)
        self.count = 0
        self.paths: list[str] = []
        os.makedirs(directory, exist_ok=True)

    def dump(self, graph, stage: str) -> None:
        base = os.path.join(self.directory, f"{self.name}_{self.count:02d}_{_safe(stage)}")
        self.count += 1
        for ext, text in ((".ir", graph.text() + "\n"), (".dot", graph.dot())):
            tmp = base + ext + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, base + ext)  # a crash never leaves half a file
            self.paths.append(base + ext)
