"""Differential fuzzer: small generated programs give eager's results under
``ms_graph.jit`` and in GRAPH_MODE (a Cell) on every call, or raise a clear error.

A program is a method ``construct(self, x, y)`` of a class with two attributes, made
of random statements: operator chains, ``x[i] = v`` writes, Python reads of tensor
values (``float(a.sum())``, also inside a called method: these must raise), ``if`` and
``while`` on tensors (with writes in them), ``if`` on an attribute flag, calls of a
helper method and of a recursive helper bounded by a Python int. Each program runs
for several calls with other inputs and other attribute values in between, eagerly (the
oracle), through ``ms_graph.jit`` and, when ms-nn is installed, in GRAPH_MODE. The
source is written to a file, since conversion reads it.

Budget: ``MS_FUZZ_EXAMPLES`` programs (default 8, a few seconds); ``nox -s fuzz`` runs
thousands.
"""

import atexit
import importlib.util
import itertools
import os
import shutil
import tempfile
from pathlib import Path

import ms_graph
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ms_graph.convert import GraphSyntaxError

from ms_tensor import Tensor
from ms_tensor.context import GRAPH_MODE, get_context, set_context

try:
    import ms_nn
except ImportError:  # ms-graph alone: jit only
    ms_nn = None

EXAMPLES = int(os.environ.get("MS_FUZZ_EXAMPLES", "8"))
N = 4  # elements of x, y and every tensor variable
CALLS = 3
_dir = Path(tempfile.mkdtemp(prefix="ms_fuzz_graph_"))
atexit.register(shutil.rmtree, _dir, True)
_count = itertools.count()

# -- statements: (lines, reads) ; `a`, `b` are the tensor variables ----------------------
_idx = st.integers(0, N - 1)
_const = st.sampled_from(["0.5", "1.5", "-0.25", "2.0"])
_unary = st.sampled_from(["ops.tanh({})", "ops.relu({})", "ops.sin({})",
                          "ops.exp(ops.minimum({}, 2.0))", "ops.abs({})", "-({})"])
_binary = st.sampled_from(["{} + {}", "{} * {}", "{} - {}", "ops.maximum({}, {})"])
_var = st.sampled_from(["a", "b", "x", "y"])
_target = st.sampled_from(["a", "b"])


@st.composite
def _chain(draw):
    t, u = draw(_target), draw(_unary)
    expr = u.format(draw(_binary).format(draw(_var), draw(_var)))
    return [f"{t} = {expr} * {draw(_const)}"], False


@st.composite
def _setitem(draw):
    t, i, j = draw(_target), draw(_idx), draw(_idx)
    if draw(st.booleans()):
        return [f"{t}[{i}] = {draw(_var)}[{j}] * {draw(_const)}"], False
    return ["m = ops.zeros_like(a)", f"m[{i}] = {draw(_var)}[{j}]", f"{t} = {t} + m"], False


@st.composite
def _read(draw):
    form = draw(st.sampled_from(["float({}.sum())", "{}.asnumpy().max()", "{}.sum().item()",
                                 "int({}.max() > 0)"]))
    t = draw(_target)
    return [f"{t} = {t} * {form.format(draw(_var))}"], True


@st.composite
def _tensor_if(draw):
    c = draw(_const)
    then, _ = draw(st.one_of(_chain(), _setitem()))
    other, _ = draw(st.one_of(_chain(), _setitem()))
    return ([f"if {draw(_var)}.sum() > {c}:", *("    " + s for s in then), "else:",
             *("    " + s for s in other)], False)


@st.composite
def _tensor_while(draw):
    t, c = draw(_target), draw(_const)
    # Each iteration raises the max by at least 1 (from at least -5): it ends.
    body = [f"    {t} = ops.maximum({t} + 1.0, -5.0)"]
    if draw(st.booleans()):  # a write in the body (element 0 only: the others still grow)
        body.append(f"    {t}[0] = {t}[0] * 0.5")
    return [f"while {t}.max() < {c}:", *body], False


@st.composite
def _python_for(draw):
    t = draw(_target)
    return [f"for i in range({draw(st.integers(1, N))}):",
            f"    {t}[i] = {t}[i] + {draw(_var)}[i]"], False


@st.composite
def _flag(draw):
    t = draw(_target)
    return ["if self.flag:", f"    {t} = {t} * self.scale", "else:",
            f"    {t} = {t} - self.scale"], False


@st.composite
def _helper(draw):
    t = draw(_target)
    kind = draw(st.sampled_from(["helper", "halve", "reader"]))
    if kind == "helper":
        return [f"{t} = self.helper({t}, {draw(_var)})"], False
    if kind == "reader":  # a value read inside a called method: an error too
        return [f"{t} = self.reader({t})"], True
    return [f"{t} = _halve({t}, {draw(st.integers(0, 3))})"], False


_statement = st.one_of(_chain(), _setitem(), _tensor_if(), _tensor_while(), _python_for(),
                       _flag(), _helper(), _read())

_TEMPLATE = '''\
import ms_ops as ops


def _halve(v, n):
    if n == 0:
        return v
    return _halve(v * 0.5, n - 1)


class Program(Base):
    def __init__(self):
        super().__init__()
        self.flag = True
        self.scale = 2.0

    def helper(self, v, w):
        if w.sum() > 0:
            v = v * 2.0
        return ops.tanh(v) * self.scale

    def reader(self, v):
        return v * float(v.max())

    def construct(self, x, y):
        a = x * 1.0
        b = y * 1.0
{body}
        return a + b * 0.5
'''


def _load(statements, base):
    body = "\n".join("        " + line for s in statements for line in s)
    path = _dir / f"program_{next(_count)}.py"
    path.write_text(_TEMPLATE.format(body=body))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    module.Base = base
    spec.loader.exec_module(module)
    return module.Program, path


def _eager(cls):
    obj = cls()
    return obj, obj.construct


def _jit(cls):
    obj = cls()
    return obj, ms_graph.jit(cls.construct).__get__(obj)


def _graph_mode(cls):
    net = cls()

    def run(x, y):
        previous = get_context("mode")
        set_context(mode=GRAPH_MODE)
        try:
            return net(x, y)
        finally:
            set_context(mode=previous)

    return net, run


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 50,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(statements=st.lists(_statement, min_size=1, max_size=6),
       seed=st.integers(0, 2 ** 16), flags=st.lists(st.booleans(), min_size=CALLS,
                                                    max_size=CALLS))
def test_compiled_programs_equal_eager_or_raise(statements, seed, flags):
    reads = any(r for _, r in statements)
    program = [s for s, _ in statements]
    rng = np.random.default_rng(seed)
    calls = [(rng.standard_normal(N).astype(np.float32),
              rng.standard_normal(N).astype(np.float32), flag, float(k + 2))
             for k, flag in enumerate(flags)]
    plain, path = _load(program, object)
    runners = {"eager": _eager(plain), "jit": _jit(plain)}
    if ms_nn is not None:
        cell, cell_path = _load(program, ms_nn.Cell)
        runners["graph_mode"] = _graph_mode(cell)
    failed = {}
    for k, (x, y, flag, scale) in enumerate(calls):
        results = {}
        for name, (obj, run) in runners.items():
            if name in failed:
                continue
            obj.flag, obj.scale = flag, scale
            try:
                with np.errstate(all="ignore"):
                    results[name] = run(Tensor(x.copy()), Tensor(y.copy())).asnumpy()
            except GraphSyntaxError as e:
                assert name != "eager", e
                assert reads, f"{path}: {name} refused a program without value reads: {e}"
                assert k == 0, f"{path}: {name} raised on call {k}, not on its first: {e}"
                assert str(cell_path if name == "graph_mode" else path) in str(e), \
                    f"the error does not name the program's file: {e}"
                failed[name] = e
        for name, got in results.items():
            np.testing.assert_allclose(got, results["eager"], rtol=1e-5, atol=1e-5,
                                       equal_nan=True,
                                       err_msg=f"{name} differs from eager, call {k}, {path}")
    if reads:
        assert set(failed) == set(runners) - {"eager"}, \
            f"{path}: a Python read of a tensor value compiled ({sorted(failed)} raised)"
