"""``import microspore as ms`` gives MindSpore's namespace, and importing it stays light."""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest

import microspore as ms
from ms_tensor import Tensor


def test_import_loads_only_ms_tensor():
    code = ("import sys, microspore; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('ms_ops', 'ms_autodiff', 'ms_data', 'ms_nn', 'pyarrow', 'ms_plugin_example')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name, owner", [
    ("Tensor", "ms_tensor"), ("Parameter", "ms_tensor"), ("set_context", "ms_tensor"),
    ("grad", "ms_autodiff"), ("value_and_grad", "ms_autodiff"), ("vjp", "ms_autodiff"),
    ("jvp", "ms_autodiff"), ("Model", "ms_nn"), ("LossMonitor", "ms_nn"),
    ("TimeMonitor", "ms_nn"), ("save_checkpoint", "ms_nn"), ("load_checkpoint", "ms_nn"),
    ("load_param_into_net", "ms_nn"), ("Metric", "ms_nn"), ("Accuracy", "ms_nn"),
    ("FixedLossScaleManager", "ms_nn"), ("set_seed", "ms_tensor"),
])
def test_top_level_names_come_from_their_package(name, owner):
    assert getattr(ms, name).__module__.split(".")[0] == owner


def test_dtypes_and_modes():
    assert ms.float32 is ms.dtype.float32 and ms.int32 is ms.common.dtype.int32
    assert (ms.GRAPH_MODE, ms.PYNATIVE_MODE) == (0, 1)
    assert ms.common.dtype.dtype_to_nptype(ms.float16) is np.float16
    assert ms.common.dtype.pytype_to_dtype(float) is ms.float64


@pytest.mark.parametrize("path", [
    "microspore.ops", "microspore.ops.functional", "microspore.ops.operations",
    "microspore.ops.composite", "microspore.ops.function", "microspore.ops.primitive",
    "microspore.nn", "microspore.dataset",
    "microspore.dataset.vision", "microspore.dataset.vision.transforms",
    "microspore.dataset.vision.c_transforms", "microspore.dataset.vision.py_transforms",
    "microspore.dataset.vision.utils", "microspore.dataset.transforms",
    "microspore.dataset.transforms.transforms", "microspore.dataset.transforms.c_transforms",
    "microspore.dataset.transforms.py_transforms", "microspore.train",
    "microspore.train.callback", "microspore.train.serialization", "microspore.train.model",
    "microspore.train.metrics", "microspore.train.loss_scale_manager", "microspore.common",
    "microspore.common.initializer", "microspore.common.dtype", "microspore.context",
    "microspore.amp",
])
def test_mindspore_module_paths_import(path):
    module = importlib.import_module(path)
    assert dir(module)


def test_submodules_are_attributes():
    assert ms.ops.functional is importlib.import_module("microspore.ops.functional")
    assert ms.dataset.vision.c_transforms.Resize is ms.dataset.vision.Resize
    assert ms.context.GRAPH_MODE == ms.GRAPH_MODE


def test_ops_reaches_every_operator_form():
    x = ms.Tensor(np.array([1.0, 2.0, 4.0]), ms.float32)
    np.testing.assert_allclose(ms.ops.Pow()(x, 3.0).asnumpy(), [1, 8, 64])
    np.testing.assert_allclose(ms.ops.functional.tensor_pow(x, 3.0).asnumpy(), [1, 8, 64])
    np.testing.assert_allclose(ms.ops.operations.Pow()(x, 2.0).asnumpy(), [1, 4, 16])
    assert ms.ops.composite.GradOperation is ms.ops.GradOperation
    assert ms.ops.P is ms.ops.operations and ms.ops.P.MatMul is ms.ops.MatMul
    np.testing.assert_allclose(ms.ops.function.tensor_pow(x, 2.0).asnumpy(), [1, 4, 16])
    assert ms.ops.primitive.Primitive is ms.ops.Primitive


def test_missing_names_say_where_they_looked():
    with pytest.raises(AttributeError, match="no operator 'not_an_op'"):
        ms.ops.not_an_op  # noqa: B018
    with pytest.raises(AttributeError, match="operations has no Primitive 'add'"):
        ms.ops.operations.add  # noqa: B018
    with pytest.raises(AttributeError, match="'microspore.nn' has no attribute 'Nope'.*ms_nn"):
        ms.nn.Nope  # noqa: B018


def test_common_initializer_and_nn_build_a_network():
    ms.set_seed(1)
    w = ms.common.initializer.initializer(ms.common.initializer.TruncatedNormal(0.02), (3, 4),
                                          ms.float32)
    assert tuple(w.shape) == (3, 4)
    net = ms.nn.SequentialCell([ms.nn.Dense(4, 3), ms.nn.ReLU()])
    out = net(ms.Tensor(np.ones((2, 4)), ms.float32))
    assert isinstance(out, Tensor) and tuple(out.shape) == (2, 3)


def test_grad_through_the_namespace():
    g = ms.grad(lambda x: (x * x).sum())(ms.Tensor(np.array([1.0, -2.0]), ms.float32))
    np.testing.assert_allclose(g.asnumpy(), [2.0, -4.0])


def test_jit_compiles_through_ms_graph_in_every_form():
    captured = []

    @ms.jit
    def f(x):
        captured.append(x)  # runs while the graph is captured, not on cached calls
        return x + 1

    @ms.jit(capture_mode="trace")
    def g(x):
        return x * 2

    class Net(ms.nn.Cell):
        @ms.jit
        def construct(self, x):
            return x - 1

    x = ms.Tensor(np.array([1.0, 2.0]), ms.float32)
    assert f(x).asnumpy().tolist() == [2.0, 3.0] and f.__name__ == "f"
    assert f(x * 3).asnumpy().tolist() == [4.0, 7.0]
    assert len(captured) == 1 and (f.misses, f.hits) == (1, 1)
    assert g(x).asnumpy().tolist() == [2.0, 4.0]
    assert Net()(ms.Tensor(np.array([3.0]), ms.float32)).asnumpy().tolist() == [2.0]
    with pytest.raises(TypeError, match="jit: expected a function"):
        ms.jit(3)
    with pytest.raises(ValueError, match="capture_mode='bytecode' is not supported"):
        ms.jit(capture_mode="bytecode")
    with pytest.raises(ValueError, match="dynamic=1 is not supported"):
        ms.jit(lambda x: x, dynamic=1)
