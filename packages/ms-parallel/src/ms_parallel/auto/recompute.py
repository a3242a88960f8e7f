"""``Cell.recompute()`` on any cell inside a pipeline stage (MindSpore's recomputation).

While a stage runs its forward pass under ``recomputing(cells)``, every cell among them or
nested in them that is marked with ``Cell.recompute()`` runs as one call with its own
gradient rule (``ms_autodiff.call_with_bprop``): its operators run without recording, so the
differentiating tape keeps only the cell's inputs, Parameters and output, not the
activations inside it; the rule runs the cell again under ``vjp`` and pulls the cotangent
through that. Gradients equal the plain pass's; the inner activations live only while the
cell's own backward runs.

A marked cell must take Tensors and return a Tensor (or a tuple of them). Outside
``recomputing`` the cells are untouched (evaluation runs them as written).
"""

from __future__ import annotations

from contextlib import contextmanager

from ms_tensor import Tensor

__all__ = ["recomputing", "marked"]


def marked(cells) -> list:
    """The cells among ``cells`` or inside them marked with ``Cell.recompute()``."""
    out, seen = [], set()
    for top in cells:
        for _, c in top.cells_and_names():
            if c.__dict__.get("_recompute", False) and id(c) not in seen:
                seen.add(id(c))
                out.append(c)
    return out


@contextmanager
def recomputing(cells):
    """Marked cells among/inside ``cells`` recompute their activations (module doc)."""
    patched = marked(cells)
    for c in patched:
        c.__dict__["construct"] = _checkpointed(c, type(c).construct.__get__(c))
    try:
        yield patched
    finally:
        for c in patched:
            c.__dict__.pop("construct", None)


def _checkpointed(cell, construct):
    from ms_autodiff import call_with_bprop, vjp

    def run(*args):
        if not all(isinstance(a, Tensor) for a in args):
            raise TypeError(f"{type(cell).__name__}.recompute(): the cell's inputs must be "
                            f"Tensors, got {[type(a).__name__ for a in args]}")
        params = list(cell.trainable_params())
        k = len(args)

        def forward(*xs):
            return construct(*xs[:k])

        def bprop(*values):
            xs, dout = values[:k], values[-1]
            _, pull = vjp(lambda *a: construct(*a), *xs, weights=params)
            in_grads, w_grads = pull(dout)
            return (*in_grads, *w_grads)

        return call_with_bprop(forward, bprop, *args, *params,
                               name=f"{type(cell).__name__}.recompute")
    return run
