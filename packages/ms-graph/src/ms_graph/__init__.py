"""ms-graph: static graph mode for microspore (capture -> IR -> passes -> executor).

``jit`` compiles a function or a Cell's ``construct`` per input signature; ``trace``
captures one call as an ``ir.Graph``; ``compile`` gives the runnable graph of one call.
"""

from ms_graph import ir
from ms_graph.convert.errors import GraphSyntaxError
from ms_graph.executor import Executable
from ms_graph.jit import compile, jit
from ms_graph.trace import TraceError, trace

__version__ = "0.1.0"
__all__ = ["ir", "jit", "trace", "compile", "Executable", "TraceError", "GraphSyntaxError"]
