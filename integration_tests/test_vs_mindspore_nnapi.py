"""Issue 17's nn and ops additions equal MindSpore 2.10's, weight for weight: outputs and
the gradients of their sums with respect to the input and every weight, and CTCLoss with
its gradient. Both frameworks run ``_nnapi_cases.run``: microspore here, MindSpore in its
own interpreter (``MS_PYTHON``, default ``/tmp/msenv/bin/python``; skipped when absent).
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

_spec = importlib.util.spec_from_file_location("_nnapi_cases", HERE / "_nnapi_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


def make_arrays() -> dict:
    rng = np.random.default_rng(0)
    arrays = {}
    for case in cases.CASES:
        shapes, x_shape = cases.param_shapes(ms, case)
        for name, shape in shapes.items():
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            arrays[f"{case}/{name}"] = (rng.standard_normal(shape) / np.sqrt(fan_in)) \
                .astype(np.float32)
        arrays[f"{case}/x"] = rng.standard_normal(x_shape).astype(np.float32)
    lp = rng.standard_normal((12, 3, 5))
    arrays["ctc/log_probs"] = (lp - np.log(np.exp(lp).sum(-1, keepdims=True))).astype(np.float32)
    arrays["ctc/targets"] = rng.integers(1, 5, (3, 4)).astype(np.int32)
    arrays["ctc/in_len"] = np.array([12, 11, 9], np.int32)
    arrays["ctc/tg_len"] = np.array([4, 2, 3], np.int32)
    return arrays


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vs_mindspore_nnapi")
    arrays = make_arrays()
    np.savez(tmp / "in.npz", **arrays)
    proc = subprocess.run([MS_PYTHON, str(HERE / "_nnapi_cases.py"), str(tmp / "in.npz"),
                           str(tmp / "out.npz")], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "GLOG_v": "3"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return cases.run(ms, arrays), dict(np.load(tmp / "out.npz"))


@pytest.mark.parametrize("case", [*cases.CASES, "ctc"])
def test_outputs_and_gradients_equal_mindspores(results, case):
    ours, theirs = results
    keys = sorted(k for k in theirs if k.startswith(case + "/"))
    assert keys == sorted(k for k in ours if k.startswith(case + "/"))
    for key in keys:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-4, atol=5e-5, err_msg=key)
