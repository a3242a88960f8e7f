"""The device functions over set_context, and the buffer/DLPack/swap creation functions."""

import importlib.util

import numpy as np
import pytest

from ms_tensor import Tensor, float32, get_context, set_context
from ms_tensor.creation import from_dlpack, frombuffer, swap_tensors, to_dlpack
from ms_tensor.device import get_current_device, run_check, set_deterministic, set_device


@pytest.fixture(autouse=True)
def _restore():
    saved = get_context("deterministic")
    yield
    set_context(deterministic=saved, device_target="CPU", device_id=0)


def test_device_functions_speak_set_context(capsys):
    set_device("CPU", 0)
    info = get_current_device()
    assert (info.device_target, info.device_id) == ("CPU", 0)
    set_deterministic(True)
    assert get_context("deterministic") == "ON"
    with pytest.raises(TypeError, match="set_deterministic: expected a bool"):
        set_deterministic("yes")
    with pytest.raises(ValueError, match="device_target 'NPU' is not available"):
        set_device("NPU")
    run_check()
    out = capsys.readouterr().out
    if importlib.util.find_spec("ms_ops") is None:  # ms-tensor alone: no operators
        assert "no operator 'mul' is installed (install ms-ops)" in out
    else:
        assert "multiplication calculation is correct" in out


def test_jit_syntax_level_lax_only():
    set_context(jit_syntax_level=2)
    with pytest.raises(ValueError, match="jit_syntax_level 0 is not supported"):
        set_context(jit_syntax_level=0)


def test_frombuffer_dlpack_and_swap():
    raw = bytearray(np.arange(6, dtype=np.float32).tobytes())
    t = frombuffer(raw, float32, count=4, offset=8)
    np.testing.assert_array_equal(t.asnumpy(), [2, 3, 4, 5])
    assert frombuffer(bytes(raw), np.float32).asnumpy()[-1] == 5  # read-only: copied
    a = np.arange(3.0)
    shared = from_dlpack(a)
    a[0] = 9.0
    assert shared.asnumpy()[0] == 9.0
    back = np.from_dlpack(_Capsule(to_dlpack(Tensor(np.ones(2)))))
    np.testing.assert_array_equal(back, [1.0, 1.0])
    x, y = Tensor(np.array([1.0])), Tensor(np.array([2.0, 3.0]))
    swap_tensors(x, y)
    assert x.shape == (2,) and y.asnumpy().tolist() == [1.0]


class _Capsule:
    """numpy reads DLPack from objects with __dlpack__, not from bare capsules."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)
