"""Public functions return what MindSpore 2.10 returns: values, dtypes, shapes, error types.

Both frameworks run ``_api_cases.run`` (one call per case, written against MindSpore's
API) on the same inputs: microspore here, MindSpore in one subprocess of its own
interpreter (``MS_PYTHON``, default ``/tmp/msenv/bin/python``; skipped when absent).
A case in ``_api_cases.KNOWN_DIFFERENCES`` is a strict xfail: it passes once fixed, and
then the entry and its line in docs/compatibility.md ("Known differences") must go.
"""

from __future__ import annotations

import importlib.util
import json
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

_spec = importlib.util.spec_from_file_location("_api_cases", HERE / "_api_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vs_mindspore_api")
    data = cases.arrays()
    np.savez(tmp / "in.npz", **data)
    proc = subprocess.run([MS_PYTHON, str(HERE / "_api_cases.py"), str(tmp / "in.npz"),
                           str(tmp / "out.json"), str(tmp / "out.npz")], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "GLOG_v": "3"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads((tmp / "out.json").read_text()), dict(np.load(tmp / "out.npz"))
    meta, values = cases.run(ms, data)
    return (json.loads(json.dumps(meta)), values), theirs  # tuples become lists, as theirs


def assert_same(ours: dict, theirs: dict, key: str, our_values: dict, their_values: dict):
    kinds = ours["kind"], theirs["kind"]
    if "error" in kinds:
        assert kinds == ("error", "error"), f"{key}: ours {ours}, MindSpore's {theirs}"
        assert ours["type"] == theirs["type"], f"{key}: {ours['message']} / {theirs['message']}"
    elif ours["kind"] in ("tuple", "list"):
        assert theirs["kind"] == ours["kind"] and len(ours["items"]) == len(theirs["items"])
        for i, (o, t) in enumerate(zip(ours["items"], theirs["items"])):
            assert_same(o, t, f"{key}/{i}", our_values, their_values)
    elif ours["kind"] in ("tensor", "ndarray"):
        assert (ours["kind"], ours["dtype"], ours["shape"]) == \
            (theirs["kind"], theirs["dtype"], theirs["shape"]), key
        a, b = our_values[key], their_values[key]
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=key)
        else:
            np.testing.assert_array_equal(a, b, err_msg=key)
    elif ours["kind"] == "python":
        assert (ours["type"], ours["kind"]) == (theirs["type"], theirs["kind"]), key
        assert np.allclose(ours["value"], theirs["value"], rtol=1e-6) \
            if isinstance(ours["value"], float) else ours["value"] == theirs["value"], key
    else:  # another object (a dtype): compared by what it prints
        assert (ours["kind"], ours["value"]) == (theirs["kind"], theirs["value"]), key


def _params() -> list:
    params = []
    for cid, _, _ in cases.CASES:
        reason = cases.KNOWN_DIFFERENCES.get(cid)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(cid, marks=marks, id=cid))
    return params


@pytest.mark.parametrize("cid", _params())
def test_same_as_mindspore(results, cid):
    (ours, our_values), (theirs, their_values) = results
    assert_same(ours[cid], theirs[cid], cid, our_values, their_values)
