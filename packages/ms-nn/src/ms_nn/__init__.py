"""ms-nn: microspore's networks (MindSpore's ``mindspore.nn``): ``Cell``, containers and
weight initializers.

Layers, losses, optimizers, wrappers and ``Model`` live in submodules that import on
their own; this module names only what exists.
"""

from ms_nn import initializer
from ms_nn.cell import Cell
from ms_nn.containers import CellDict, CellList, SequentialCell
from ms_nn.hooks import HookHandle

__version__ = "0.1.0"

__all__ = ["Cell", "CellList", "SequentialCell", "CellDict", "HookHandle", "initializer"]
