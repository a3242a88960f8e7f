"""MindSpore's MINDIR format: ``save_graph`` writes a lite ``Graph`` that MindSpore 2.10's
``ms.load`` + ``nn.GraphCell`` runs (LeNet5- and MLP-style networks: the operators of
``writer.WRITERS``; any other registry operator in microspore's generic encoding, which
microspore reads back), ``load_graph`` reads ours and MindSpore's files.

Importing this package needs ``protobuf`` (``ms_lite.export`` falls back to the lite
container without it).
"""

from ms_lite.mindir.reader import MindirFileError, load_mindir
from ms_lite.mindir.writer import MindirExportError, mindspore_native, save_mindir, to_mindir

# The names ms_lite.export and the converter look for.
save_graph = save_mindir
load_graph = load_mindir

__all__ = ["save_mindir", "load_mindir", "save_graph", "load_graph", "to_mindir",
           "mindspore_native", "MindirFileError", "MindirExportError"]
