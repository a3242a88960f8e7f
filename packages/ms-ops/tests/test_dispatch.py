"""The eager path every operator shares: binding, checking, plans, recording, errors."""

import numpy as np
import pytest

import ms_ops as ops
from ms_ops import OpDef, OpError, dispatch, set_recorder
from ms_ops.defs.arithmetic import Add
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import elementwise
from ms_ops.opdef import Arg, TensorSpec
from ms_tensor import Tensor, bool_, float32, int32, registry
from ms_tensor.hookspecs import hookimpl


def test_inference_runs_before_the_kernel_and_without_data():
    spec = ops.MatMul(transpose_b=True).infer(TensorSpec((2, 3), float32),
                                             TensorSpec((5, 3), float32))
    assert spec == TensorSpec((2, 5), float32)


def test_a_signature_is_planned_once_and_reused():
    x = Tensor(np.ones((7, 3), np.float32))
    plans, fast = dispatch._tables_of(Add)
    plans.clear()
    fast.clear()
    x + x
    x + x
    assert len(plans) == 1 and len(fast) == 1  # the second call took the fast path
    x + Tensor(np.ones((7, 3), np.float64))
    assert len(plans) == 2 and len(fast) == 1  # a cast: never on the fast path


def test_the_definition_holds_no_run_time_state():
    before = dict(vars(Add))
    x = Tensor(np.ones(3, np.float32))
    x + x
    ops.add(x, 2.0)
    assert vars(Add) == before


def test_a_registry_reset_drops_every_plan_at_once():
    x = Tensor(np.ones(3, np.float32))
    x + x
    plans, fast = dispatch._tables_of(Add)
    assert fast
    registry.reset()
    assert not plans and not fast
    np.testing.assert_allclose((x + x).asnumpy(), [2.0, 2.0, 2.0])


def test_plan_works_from_specs_and_weak_scalars_without_data():
    p = ops.plan(Add, [TensorSpec((2, 3), int32), 1.5])
    assert p.outputs == TensorSpec((2, 3), float32)
    assert p.inputs == (TensorSpec((2, 3), float32), TensorSpec((), float32))
    assert p.casts == (np.dtype(np.float32), np.dtype(np.float32)) and p.cast
    assert p.kernel is registry.load().kernel("Add", "CPU") and not p.multi
    p = ops.plan(ReduceSum, [TensorSpec((2, 3), float32), (1,)], {"keep_dims": True})
    assert p.outputs == TensorSpec((2, 1), float32) and not p.cast
    assert p.kwargs == {"axis": (1,), "keep_dims": True}


def test_plan_checks_the_kernel_dtypes_and_names_the_input():
    with pytest.raises(TypeError, match="Sub: input 'x' has dtype Bool"):
        ops.plan(registry.load().primitive("Sub"),
                 [TensorSpec((2,), bool_), TensorSpec((2,), bool_)])
    with pytest.raises(ValueError, match="MatMul"):
        ops.plan(registry.load().primitive("MatMul"),
                 [TensorSpec((2, 3), float32), TensorSpec((4, 5), float32)])


def test_method_for_makes_tensor_methods_with_the_fast_path():
    add, radd = dispatch.method_for(Add), dispatch.method_for(Add, reflected=True)
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([10.0, 20.0], np.float32))
    np.testing.assert_allclose(add(x, y).asnumpy(), [11.0, 22.0])
    np.testing.assert_allclose(radd(x, 1.0).asnumpy(), [2.0, 3.0])
    seen = []
    previous = set_recorder(lambda op, inputs, attrs, out: seen.append((op.name, inputs)))
    try:
        add(x, y)  # planned above: the fast path records too
    finally:
        set_recorder(previous)
    assert seen == [("Add", (x, y))]


def test_static_inputs_and_attributes_are_part_of_the_signature():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    a = ops.ReduceSum(keep_dims=True)(x, 1)
    b = ops.ReduceSum()(x, 1)
    c = ReduceSum(x, (0, 1))
    assert a.shape == (2, 1) and b.shape == (2,) and c.shape == ()
    assert float(c) == 15.0


def test_recorder_sees_every_eager_operator():
    seen = []
    previous = set_recorder(lambda op, inputs, attrs, out: seen.append((op.name, out.shape)))
    try:
        x = Tensor(np.ones(3, np.float32))
        y = x * x + 1.0
        ops.ReduceSum()(y)
    finally:
        set_recorder(previous)
    assert seen == [("Mul", (3,)), ("Add", (3,)), ("ReduceSum", ())]


def test_primitive_rejects_unknown_and_duplicate_attributes():
    with pytest.raises(TypeError, match="MatMul.. got an unexpected attribute 'transpose'"):
        ops.MatMul(transpose=True)
    with pytest.raises(TypeError, match="multiple values for attribute 'transpose_a'"):
        ops.MatMul(True, transpose_a=True)
    assert ops.MatMul(transpose_b=True).transpose_b is True


def test_functional_call_binding_errors_name_the_operator():
    with pytest.raises(TypeError, match="Add: missing required argument 'y'"):
        ops.add(Tensor([1.0]))
    with pytest.raises(TypeError, match="Add: unexpected argument 'z'"):
        ops.add(Tensor([1.0]), z=1)


def test_unknown_functional_name_says_where_names_come_from():
    with pytest.raises(AttributeError, match="no operator 'no_such_op'"):
        _ = ops.functional.no_such_op


class _BrokenPlugin:
    Broken = OpDef("BrokenForTest", (Arg("x"),), infer=elementwise())

    @staticmethod
    @Broken.kernel("CPU")
    def _kernel(x):
        raise FloatingPointError("boom")

    @hookimpl
    def ms_register_ops(self, registry):
        registry.add_ops(self.Broken)


def test_a_failing_kernel_is_reported_as_an_operator_bug_with_its_inputs():
    registry.register_plugin(_BrokenPlugin(), "broken-test")
    try:
        with pytest.raises(OpError, match=r"BrokenForTest: kernel failed on inputs "
                           r"\(TensorSpec\(\(2,\), Float32\),\): FloatingPointError"):
            _BrokenPlugin.Broken(Tensor(np.ones(2, np.float32)))
    finally:
        registry.unregister_plugin("broken-test")


class _HungryPlugin:
    Hungry = OpDef("HungryForTest", (Arg("x"),), infer=elementwise())

    @staticmethod
    @Hungry.kernel("CPU")
    def _kernel(x):
        return np.empty((1 << 62,), np.uint8)  # more than any machine has

    @hookimpl
    def ms_register_ops(self, registry):
        registry.add_ops(self.Hungry)


def test_out_of_memory_in_a_kernel_arrives_as_memory_error():
    registry.register_plugin(_HungryPlugin(), "hungry-test")
    try:
        with pytest.raises(MemoryError):
            _HungryPlugin.Hungry(Tensor(np.ones(2, np.float32)))
    finally:
        registry.unregister_plugin("hungry-test")


def test_kernel_dtype_support_is_checked_before_running():
    with pytest.raises(TypeError, match="Sub: input 'x' has dtype Bool"):
        Tensor(np.array([True])) - Tensor(np.array([False]))


def test_ops_reload_after_registry_reset():
    x = Tensor(np.ones(2, np.float32))
    registry.reset()
    np.testing.assert_allclose((x + x).asnumpy(), [2.0, 2.0])


def test_data_errors_found_by_a_kernel_name_the_operator_and_inputs():
    with pytest.raises(IndexError, match=r"Gather: .*out of bounds.*\(inputs \(2,\) Float32"):
        ops.gather(Tensor(np.ones(2, np.float32)), Tensor(np.array([3])), 0)


def test_scalars_of_different_types_do_not_share_a_plan():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ops.ReduceSum(keep_dims=True)(x, 1).shape == (2, 1)
    with pytest.raises(TypeError):
        ops.ReduceSum(keep_dims=1)(x, 1)


class _OptionalInputPlugin:
    Scale = OpDef("ScaleForTest", (Arg("x"), Arg("weight", default=None)),
                  infer=lambda x, weight: x)

    Scale.kernel("CPU")(lambda x, w: x if w is None else x * w)

    @hookimpl
    def ms_register_ops(self, registry):
        registry.add_ops(self.Scale)


def test_an_optional_tensor_input_reaches_inference_and_kernel_as_none():
    registry.register_plugin(_OptionalInputPlugin(), "optional-test")
    try:
        x = Tensor(np.array([1.0, 2.0], np.float32))
        np.testing.assert_allclose(_OptionalInputPlugin.Scale(x).asnumpy(), [1.0, 2.0])
        w = Tensor(np.array([3.0, 3.0], np.float32))
        np.testing.assert_allclose(_OptionalInputPlugin.Scale(x, w).asnumpy(), [3.0, 6.0])
    finally:
        registry.unregister_plugin("optional-test")
