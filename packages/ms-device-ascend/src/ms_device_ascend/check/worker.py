"""The process ``microspore ascend check`` runs a script in: every operator call the
script makes (eagerly, and while its graphs are captured) is written to a JSON-lines
file, once per distinct (operator, input specs, call stack).

    python -m ms_device_ascend.check.worker OUT.jsonl SECONDS script.py [args...]

After ``SECONDS`` the next operator call ends the run (the record says so); the parent
also kills the process past its own timeout, so a check never hangs.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import time

from ms_tensor.parameter import Parameter
from ms_tensor.tensor import Tensor, array_of

_FRAMEWORK = ("ms_tensor", "ms_ops", "ms_autodiff", "ms_graph", "ms_nn", "ms_data",
              "ms_parallel", "ms_device_ascend", "microspore", "numpy", "runpy")


# In-place optimizer updates: the last operators of a training step.
UPDATES = frozenset({"ApplyMomentum", "ApplyGradientDescent", "Adam"})


class _TimeUp(BaseException):
    """Ends the script (a BaseException: the script's ``except Exception`` lets it by)."""


def _spec(v):
    if isinstance(v, Tensor):
        a = array_of(v)
        return [list(a.shape), str(a.dtype)]
    return None


def _where(depth: int = 2):
    """(the innermost line of the user's code, a key of the whole call stack with the
    Cells on it, whether a backward pass runs the call)."""
    frame = sys._getframe(depth)
    site, stack, backward = None, [], False
    while frame is not None:
        code = frame.f_code
        top = frame.f_globals.get("__name__", "").partition(".")[0]
        if site is None and top not in _FRAMEWORK:
            site = f"{code.co_filename}:{frame.f_lineno}"
        if top == "ms_autodiff" and code.co_name == "backward":
            backward = True
        owner = frame.f_locals.get("self")
        stack.append((code.co_filename, frame.f_lineno, id(owner) if owner is not None
                      else 0))
        frame = frame.f_back
    return site or "?", hash(tuple(stack)), backward


class Recorder:
    """Writes each new (op, specs, site) as one JSON line; tracks Parameters and steps."""

    def __init__(self, out, seconds: float):
        self.out = out
        self.deadline = time.monotonic() + seconds
        self.seen: set = set()
        self.params: dict[int, int] = {}
        self.step_bytes = 0  # output bytes since the last optimizer update
        self.updating = False
        self.sites: dict[int, tuple] = {}  # id(node) -> (node, _where() inside its branch)

    def __call__(self, op, values, attrs, out) -> None:
        if time.monotonic() > self.deadline:
            raise _TimeUp
        ins = []
        for v in values:
            ins.append(_spec(v))
            if isinstance(v, Parameter):
                self.parameter(v)
        outs = out if isinstance(out, tuple) else (out,)
        if op.name in UPDATES:
            self.updating = True
        elif self.updating:  # the first operator after an optimizer update: a new step
            self._write({"step_bytes": self.step_bytes})
            self.step_bytes, self.updating = 0, False
        self.step_bytes += sum(array_of(o).nbytes for o in outs if isinstance(o, Tensor))
        site, stack, backward = _where()
        key = (op.name, json.dumps(ins), stack)
        if key in self.seen:
            return
        self.seen.add(key)
        self._write({"op": op.name, "in": ins, "out": [_spec(o) for o in outs],
                     "site": site, "stack": stack, "grad": backward,
                     "update": op.name in UPDATES})

    def parameter(self, p) -> None:
        if id(p) not in self.params:
            self.params[id(p)] = array_of(p).nbytes
            self._write({"param": p.name, "bytes": array_of(p).nbytes})

    def branch_site(self, node) -> None:
        """Keep where the user's code inside a branch or loop body made ``node`` (told by
        ms-graph's sub-trace as the branch runs; the node is kept so its id stays its)."""
        self.sites[id(node)] = (node, _where(3))

    def branch_op(self, node, ins, outs, path, graph_name) -> None:
        """An operator inside a tensor-dependent if/while of a compiled graph
        (``branches.BranchWalker``): its site is the line inside the branch that made it
        (``branch_site``), else the user's line that compiled the graph."""
        name = node.name
        site, stack, backward = self.sites.get(id(node), (None, _where()))[1]
        key = (name, json.dumps(ins), stack, tuple(path))
        if key in self.seen:
            return
        self.seen.add(key)
        self._write({"op": name, "in": ins, "out": outs, "site": site,
                     "stack": hash((stack, tuple(path))), "grad": backward,
                     "update": name in UPDATES, "branch": graph_name})

    def _write(self, record) -> None:
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()


def main(argv) -> int:
    out_path, seconds, script, *args = argv
    from ms_graph.control_flow_trace import observe_nodes

    from ms_autodiff.recording import set_recorder
    from ms_device_ascend.check.branches import BranchWalker
    from ms_tensor import registry

    with open(out_path, "w", encoding="utf-8") as out:
        rec = Recorder(out, float(seconds))
        registry.register_plugin(BranchWalker(rec), "ascend-check-branches")
        observe_nodes(rec.branch_site)
        sys.argv = [script, *args]
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
        set_recorder(rec)
        status = {"done": "completed"}
        try:
            runpy.run_path(script, run_name="__main__")
        except _TimeUp:
            status = {"done": "time limit", "seconds": float(seconds)}
        except SystemExit as e:
            status = {"done": "exit", "code": e.code if isinstance(e.code, int) else 1}
        except Exception as e:  # the script's own error: reported, the records kept
            status = {"done": "error", "error": f"{type(e).__name__}: {e}"}
        finally:
            set_recorder(None)
        rec._write({"step_bytes": rec.step_bytes})
        rec._write(status)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
