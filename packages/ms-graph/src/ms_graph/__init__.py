"""ms-graph: static graph mode for microspore (capture -> IR -> passes -> executor).

``jit`` compiles a function or a Cell's ``construct``; ``trace`` captures one call as an
``ir.Graph``; ``compile`` gives the runnable graph for given arguments.
"""

from ms_graph import ir

__version__ = "0.1.0"
__all__ = ["ir"]
