"""Registering is cheap: an eager program loads no graph-mode code, and the passes that
graph mode registers (stage "optimize"; ms-lite's converter passes have their own stage) are
imported when a graph is first compiled, in ``passes.ORDER``."""

import subprocess
import sys

_EAGER = """
import sys
import ms_ops
from ms_tensor import Tensor, registry
x = Tensor([1.0, 2.0])
assert (x + x).tolist() == [2.0, 4.0]
print(sorted(m for m in sys.modules if m.split(".")[0] == "ms_graph"))
print([e.name for e in registry.load().in_order("pass") if e.info["stage"] == "optimize"])
"""

_COMPILED = """
import sys
import ms_graph
from ms_graph import passes
from ms_tensor import Tensor, registry
f = ms_graph.jit(lambda t: t * 2 + 1, capture_mode="trace")
assert f(Tensor([1.0])).tolist() == [3.0]
print(all(f"ms_graph.passes.{name}" in sys.modules for name in passes.ORDER))
print([e.value.__module__ for e in registry.load().in_order("pass")
       if e.info["stage"] == "optimize"] == [f"ms_graph.passes.{name}" for name in passes.ORDER])
"""


def _run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_eager_add_imports_no_graph_code():
    modules, passes = _run(_EAGER)
    # pluggy imports ms-graph's hook module (and so its package, whose names are lazy);
    # nothing of the compiler, the IR or the passes themselves; the GetNext operator's
    # definition registers with the operators (its queue module loads on first use)
    assert eval(modules) == ["ms_graph", "ms_graph.passes", "ms_graph.plugin",
                             "ms_graph.sink", "ms_graph.sink.get_next"]
    assert eval(passes) == ["inline", "algebraic", "const_fold", "cse", "fuse_elementwise",
                            "dce"]


def test_compiling_imports_the_passes_in_the_order_tests_run_them():
    assert _run(_COMPILED) == ["True", "True"]
