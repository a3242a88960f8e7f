"""The nn group's MindSpore names (3-d convolution/pooling classes, Resize*, grid sampling,
detection boxes and suppression, ROIAlign, CropAndResize, CTC, class-form losses ...)
against what MindSpore 2.10 gave for the same calls.

``data/nn_compat_mindspore210_make.py`` holds the calls and recorded
``data/nn_compat_mindspore210.npz`` with MindSpore 2.10 (CPU); here the same calls run on
microspore. A tuple result is compared output by output (``key.0``, ``key.1`` ...).
"""

import importlib.util
import os

import numpy as np
import pytest

import ms_ops
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

_DATA = os.path.join(os.path.dirname(__file__), "data")
_spec = importlib.util.spec_from_file_location(
    "nn_compat_mindspore210_make", os.path.join(_DATA, "nn_compat_mindspore210_make.py"))
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
REF = np.load(os.path.join(_DATA, "nn_compat_mindspore210.npz"))
CASES = _cases.cases(ms_ops, Tensor, mstype)


def _outputs(key):
    return sorted((k for k in REF.files if k.rsplit(".", 1)[0] == key and
                   k.rsplit(".", 1)[1].isdigit()), key=lambda k: int(k.rsplit(".", 1)[1]))


@pytest.mark.parametrize("key", sorted(CASES))
def test_same_as_mindspore(key):
    if key + ".error" in REF.files:
        with pytest.raises(Exception) as info:
            CASES[key]()
        assert type(info.value).__name__ == str(REF[key + ".error"]), info.value
        return
    got = CASES[key]()
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    names = _outputs(key)
    assert len(got) == len(names)
    for out, name in zip(got, names):
        want = REF[name]
        assert str(out.dtype).lower() == str(REF[name + ".dtype"]), name
        assert out.shape == want.shape, name
        np.testing.assert_allclose(out.asnumpy().astype(np.float64), want.astype(np.float64),
                                   rtol=2e-4, atol=2e-4 if want.dtype == np.float16 else 2e-5,
                                   err_msg=name)


def test_every_recorded_case_runs_here():
    recorded = {k.split(".")[0] for k in REF.files}
    assert recorded == set(CASES)
