"""Python reads of tensor values during a capture: an error, never a stale constant.

``float(t)``, ``t.item()``, ``t.asnumpy()``, ``bool(t)`` (an ``assert``, ``and``/``or``,
a Python ``if`` in trace mode) return a Python value or array computed from the call
being captured. The graph could only keep that value as a constant, which is wrong for
every later call with other inputs (issue 11). While any capture runs, ms-tensor's value
read hook is ``check``: a read, from user code, of a tensor whose value depends on the
inputs, the Parameters or a random operator raises ``GraphSyntaxError`` naming the line
and the rewrite. Reads of constants (a Tensor built from numpy inside the function, and
values computed only from such) stay allowed. A framework function that reads a value (an
operator composed on the host, an optimizer branching on a Parameter) would bake it in
just the same, so its read raises too, at the user's line and naming the function; only
ms-graph's own reads (a trace-time predicate it lowers to a Cond) are exempt.
"""

from __future__ import annotations

import sys
import threading

from ms_graph.convert.errors import GraphSyntaxError
from ms_tensor.tensor import set_value_read_hook

__all__ = ["check", "capturing"]

_lock = threading.Lock()
_active = [0]  # captures in progress, all threads
_EXEMPT = frozenset({"ms_graph", "numpy"})
_FRAMEWORK = frozenset({"ms_tensor", "ms_ops", "ms_ops_scipy", "ms_autodiff", "ms_nn",
                        "ms_data", "ms_parallel", "ms_lite", "ms_insight", "microspore"})
_ROUTER = "ms_graph.convert.runtime"


class capturing:
    """Install ``check`` for the duration of a capture (counted across threads)."""

    def __enter__(self):
        with _lock:
            _active[0] += 1
            if _active[0] == 1:
                set_value_read_hook(check)
        return self

    def __exit__(self, *exc):
        with _lock:
            _active[0] -= 1
            if _active[0] == 0:
                set_value_read_hook(None)


def check(tensor, what: str) -> None:
    from ms_graph.control_flow import current_trace

    tr = current_trace()
    if tr is None:
        return
    caller = sys._getframe(2)
    module = caller.f_globals.get("__name__", "")
    while module == _ROUTER:  # converted code calls ``float(t)`` through ``runtime.call``
        caller = caller.f_back
        module = caller.f_globals.get("__name__", "")
    if module.partition(".")[0] in _EXEMPT or not tr.is_variable(tensor):
        return
    reader = ""
    if module.partition(".")[0] in _FRAMEWORK:  # name the function called, at the user's line
        inner = called = caller
        while caller.f_back is not None and _top(caller) in _FRAMEWORK | _EXEMPT:
            caller = caller.f_back
            if _top(caller) in _FRAMEWORK:
                called = caller
        reader = (f" in {called.f_code.co_name} ({called.f_globals['__name__']}; the read is "
                  f"at {inner.f_code.co_filename}:{inner.f_lineno})")
    raise GraphSyntaxError(
        f"{what}{reader} reads the value of a Tensor inside a compiled function; the graph would "
        "keep the value of the call that compiled it and return stale results on later "
        "calls. Keep the computation on Tensors (x * x.sum() instead of "
        "x * float(x.sum()); a Tensor if/while or ops.select for choices; ops.shape for "
        "sizes), pass the number as a Python argument, or read it outside the compiled "
        "function", caller.f_code.co_filename, caller.f_lineno)


def _top(frame) -> str:
    return frame.f_globals.get("__name__", "").partition(".")[0]
