"""Layers, losses, gradients and optimizer steps equal MindSpore 2.10's, weight for weight.

Both frameworks run ``_nn_cases.run`` (one definition of each network, written against
MindSpore's API) from the same weights and inputs: microspore here, MindSpore in its own
interpreter (``MS_PYTHON``, default ``/tmp/msenv/bin/python``; skipped when absent).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import microspore as ms

HERE = Path(__file__).resolve().parent
MS_PYTHON = os.environ.get("MS_PYTHON", "/tmp/msenv/bin/python")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(MS_PYTHON), reason=f"no MindSpore at {MS_PYTHON}"),
]

_spec = importlib.util.spec_from_file_location("_nn_cases", HERE / "_nn_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)

INPUTS = {"dense": ((6, 20), "labels", 7), "conv_pad": ((2, 3, 8, 8), "target", (2, 4, 8, 8)),
          "conv_same": ((2, 3, 9, 9), "target", (2, 5, 5, 5)),
          "lenet": ((4, 1, 32, 32), "labels", 10)}


def make_arrays() -> dict:
    rng = np.random.default_rng(0)
    arrays = {}
    for case in cases.CASES:
        for name, shape in cases.param_shapes(ms, case).items():
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            arrays[f"{case}/{name}"] = (rng.standard_normal(shape) / np.sqrt(fan_in)) \
                .astype(np.float32)
        x_shape, kind, y_spec = INPUTS[case]
        arrays[f"{case}/x"] = rng.standard_normal(x_shape).astype(np.float32)
        arrays[f"{case}/y"] = (rng.integers(0, y_spec, x_shape[0]).astype(np.int32)
                               if kind == "labels"
                               else rng.standard_normal(y_spec).astype(np.float32))
    return arrays


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vs_mindspore")
    arrays = make_arrays()
    np.savez(tmp / "in.npz", **arrays)
    proc = subprocess.run([MS_PYTHON, str(HERE / "_nn_cases.py"), str(tmp / "in.npz"),
                           str(tmp / "out.npz")], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "GLOG_v": "3"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = dict(np.load(tmp / "out.npz"))
    ours = cases.run(ms, arrays)
    return ours, theirs


def _keys(ours, case, kind):
    return sorted(k for k in ours if k.startswith(f"{case}/{kind}"))


@pytest.mark.parametrize("case", cases.CASES)
def test_same_keys(results, case):
    ours, theirs = results
    assert _keys(ours, case, "") == sorted(k for k in theirs if k.startswith(case + "/"))


@pytest.mark.parametrize("case", cases.CASES)
@pytest.mark.parametrize("kind, rtol, atol", [
    ("out", 1e-5, 1e-5), ("loss", 1e-5, 1e-6), ("grad/", 1e-4, 1e-5),
    ("step_losses", 1e-4, 1e-5), ("trained/", 1e-4, 1e-5),
])
def test_matches_mindspore(results, case, kind, rtol, atol):
    ours, theirs = results
    keys = _keys(ours, case, kind)
    assert keys
    for key in keys:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=rtol, atol=atol, err_msg=key)
