"""MindSpore's compile hints change nothing ms-graph computes: a compiled function using
them gives the PyNative numbers."""

import numpy as np
import pytest
from ms_graph import jit
from ms_graph.hints import (
    constexpr,
    enable_dynamic,
    jit_class,
    lazy_inline,
    mutable,
    no_inline,
    set_recursion_limit,
)

from ms_tensor import Tensor, get_context, set_context


@constexpr
def _scale(n):
    return float(n) * 2


@jit_class
class _Offset:
    def __init__(self, v):
        self.v = v


def test_hinted_code_compiles_to_the_same_numbers():
    offset = _Offset(1.5)

    @jit
    def f(x):
        return x * _scale(x.shape[0]) + offset.v

    x = np.arange(3.0, dtype=np.float32)
    np.testing.assert_allclose(f(Tensor(x)).asnumpy(), x * 6 + 1.5)
    assert no_inline(_scale) is _scale and lazy_inline()(_scale) is _scale
    assert enable_dynamic(x=None)(_scale) is _scale
    assert mutable((1, 2)) == (1, 2)
    with pytest.raises(TypeError, match="mutable: input_data must be"):
        mutable(object())
    with pytest.raises(TypeError, match="jit_class: expected a class"):
        jit_class(_scale)


def test_set_recursion_limit_is_max_call_depth():
    saved = get_context("max_call_depth")
    try:
        set_recursion_limit(500)
        assert get_context("max_call_depth") == 500
    finally:
        set_context(max_call_depth=saved)
