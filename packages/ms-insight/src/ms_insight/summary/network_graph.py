"""The graph of a network, for the summary's graph dashboard.

In GRAPH_MODE a Cell keeps the graphs ms-graph compiled for its ``construct`` (one per
phase and input signature); the most recent one is the network's graph. In PyNative
there is no compiled graph, so, given example inputs, the network's forward pass is
captured once in inference mode (``ms_graph.trace``: no parameter or statistic
changes, since eval-mode layers write nothing).
"""

from __future__ import annotations

__all__ = ["compiled_graph", "forward_graph"]


def compiled_graph(cell):
    """The graph ms-graph compiled for ``cell`` most recently, or None (not compiled)."""
    graphs = cell.compiled_graphs() if hasattr(cell, "compiled_graphs") else []
    return graphs[-1] if graphs else None


def forward_graph(cell, *inputs):
    """``cell``'s forward pass on ``inputs`` captured as a graph, in inference mode.

    The cell's training flags are restored afterwards.
    """
    from ms_graph import trace

    flags = [(c, c.training) for _, c in cell.cells_and_names()]
    cell.set_train(False)
    try:
        return trace(cell, *inputs)
    finally:
        for c, flag in flags:  # parents come first, so each child's own flag wins
            c.set_train(flag)
