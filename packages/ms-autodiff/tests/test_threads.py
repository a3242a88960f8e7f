"""Tapes are per thread: grad from several threads at once gives each its own exact
gradients, also through shared Parameters (issue 11: zeros or IndexError before)."""

import ast
from pathlib import Path

import numpy as np

import ms_ops as ops
from ms_autodiff import grad, recording
from ms_autodiff.testing import run_concurrently
from ms_tensor import Parameter, Tensor

ROOT = Path(__file__).resolve().parents[3]


def test_grad_from_four_threads_is_exact():
    w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")

    def loss(x):
        return (ops.tanh(x * w) * x).sum()

    def worker(seed):
        rng = np.random.default_rng(seed)

        def run():
            for _ in range(40):
                x = rng.standard_normal(3).astype(np.float32)
                g = grad(loss)(Tensor(x)).asnumpy()
                wx = np.tanh(x * w.asnumpy())
                want = wx + x * (1 - wx ** 2) * w.asnumpy()
                np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
        return run

    run_concurrently([worker(s) for s in range(4)])
    assert recording.get_recorder() is None


def test_no_recorder_is_left_installed_after_threads():
    from ms_ops import get_recorder

    run_concurrently([lambda: grad(lambda x: (x * x).sum())(Tensor(np.ones(2, np.float32)))] * 3)
    assert get_recorder() is None


def test_only_the_recording_module_installs_dispatch_recorders():
    """``ms_ops.set_recorder`` is process-wide: a package calling it directly would take
    every other thread's tapes and traces away (see ``ms_autodiff.recording``)."""
    allowed = {"packages/ms-autodiff/src/ms_autodiff/recording.py"}
    found = []
    for path in sorted(ROOT.glob("packages/*/src/**/*.py")) + \
            sorted(ROOT.glob("plugins/*/src/**/*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in allowed or rel.startswith("packages/ms-ops/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("ms_ops", "ms_ops.dispatch") \
                    and any(a.name == "set_recorder" for a in node.names):
                found.append(f"{rel}:{node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr == "set_recorder" and \
                    isinstance(node.value, ast.Name) and node.value.id in ("dispatch", "ms_ops"):
                found.append(f"{rel}:{node.lineno}")
    assert not found, "use ms_autodiff.recording.set_recorder in: " + ", ".join(found)
