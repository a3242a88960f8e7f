"""AllReduce's eager path (``AllReduce(t)`` and ``ops.AllReduce()(t)`` with nothing
recording): it must give what the generic path gives, leave every other call to that
path, and never outlive the group it captured."""

import numpy as np
import pytest

from ms_autodiff import grad
from ms_ops import dispatch
from ms_parallel import groups
from ms_parallel.collective_def import CollectivePrimitive
from ms_parallel.reduce_ops import AllReduce, ReduceOp
from ms_tensor import Tensor


@pytest.fixture
def no_generic_path(monkeypatch):
    """Calls that reach dispatch's generic execution raise (the eager path must not)."""
    def refuse(*args, **kwargs):
        raise AssertionError("took the generic path")

    monkeypatch.setattr(dispatch, "execute", refuse)
    import ms_ops.primitive
    monkeypatch.setattr(ms_ops.primitive, "execute", refuse)


def test_operator_and_primitive_take_the_eager_path(no_generic_path):
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for out in (AllReduce(x), AllReduce(x, "max"), AllReduce.primitive()(x),
                AllReduce.primitive(ReduceOp.MIN)(x)):
        assert type(out) is Tensor and out.dtype == x.dtype
        np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
        assert not np.shares_memory(out.asnumpy(), x.asnumpy())  # a new tensor


def test_primitive_class_is_a_collective_primitive():
    from ms_ops import functional as F

    assert issubclass(F.AllReduce, CollectivePrimitive)
    prim = F.AllReduce(ReduceOp.SUM).add_prim_attr("fusion", 1)  # MindSpore scripts do
    np.testing.assert_array_equal(prim(Tensor(np.ones(3))).asnumpy(), np.ones(3))


@pytest.mark.parametrize("arr", [
    np.ones(4, np.float16),                         # MPI has no float16: widened
    np.arange(12.0).reshape(3, 4).T,                # not C-contiguous
    np.int64(3) * np.ones((2, 2), np.int64),
])
def test_other_inputs_equal_the_generic_path(arr):
    x = Tensor(arr)
    for out in (AllReduce(x), AllReduce.primitive()(x)):
        assert out.dtype == x.dtype
        np.testing.assert_array_equal(out.asnumpy(), arr)


def test_errors_come_from_inference():
    x = Tensor(np.ones(2, np.float32))
    with pytest.raises(ValueError, match="AllReduce: op must be one of"):
        AllReduce.primitive("mean")(x)
    with pytest.raises(ValueError, match="AllReduce: op must be one of"):
        AllReduce(x, ["sum"])
    with pytest.raises(RuntimeError, match="unknown communication group 'nope'"):
        AllReduce.primitive(group="nope")(x)


def test_recorded_calls_differentiate():
    prim = AllReduce.primitive()
    w = Tensor(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(grad(lambda t: (prim(t) * t).sum())(w).asnumpy(),
                                  2 * w.asnumpy())


def test_fast_paths_are_dropped_with_their_group():
    AllReduce(Tensor(np.ones(2, np.float32)))
    assert groups.runners
    g = groups.SelfGroup("scratch_group")
    groups.register(g)
    try:
        assert not groups.runners
        np.testing.assert_array_equal(
            AllReduce(Tensor(np.ones(2)), "sum", "scratch_group").asnumpy(), np.ones(2))
        assert ("AllReduce", "sum", "scratch_group") in groups.runners
    finally:
        groups.unregister("scratch_group")
    assert not groups.runners
