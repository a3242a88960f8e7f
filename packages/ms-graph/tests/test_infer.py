"""Shape and dtype inference over captured graphs, without running them."""

import numpy as np
import pytest
from ms_graph import jit
from ms_graph.infer import InferenceError, check, infer
from ms_graph.passes import run_all
from ms_graph.trace import trace

import ms_autodiff as ad
from ms_ops import functional as F
from ms_ops.opdef import TensorSpec
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

RNG = np.random.default_rng(0)


def _mlp_step():
    w1 = Parameter(Tensor(RNG.standard_normal((6, 5)).astype(np.float32)), name="w1")
    w2 = Parameter(Tensor(RNG.standard_normal((5, 3)).astype(np.float32)), name="w2")

    def loss(x, y):
        logits = F.matmul(F.relu(F.matmul(x, w1)), w2)
        return F.cross_entropy(logits, y)

    def step(x, y):
        return ad.value_and_grad(loss, grad_position=None, weights=[w1, w2])(x, y)

    x = Tensor(RNG.standard_normal((4, 6)).astype(np.float32))
    y = Tensor(np.array([0, 2, 1, 1], np.int32))
    return step, x, y


def test_inference_reproduces_a_training_step_before_and_after_the_passes():
    step, x, y = _mlp_step()
    graph = trace(step, x, y)
    check(graph)
    check(run_all(graph))


def test_other_input_shapes_infer_without_running():
    step, x, y = _mlp_step()
    graph = run_all(trace(step, x, y))
    specs = infer(graph, [TensorSpec((32, 6), mstype.float32), TensorSpec((32,), mstype.int32)])
    loss, g1, g2 = (specs[id(v)] for v in graph.outputs)
    assert loss.shape == () and g1.shape == (6, 5) and g2.shape == (5, 3)


def test_an_incompatible_shape_is_a_compile_time_error_naming_the_node():
    step, x, y = _mlp_step()
    graph = trace(step, x, y)
    with pytest.raises(InferenceError, match=r"MatMul .*\(4, 7\).*\(6, 5\)"):
        infer(graph, [TensorSpec((4, 7), mstype.float32), TensorSpec((4,), mstype.int32)])


def test_control_flow_infers_through_its_bodies():
    @jit
    def fn(x, n):
        i = 0
        while i < n:
            if x.sum() > 0:
                x = x * 0.5
            else:
                x = x - 1.0
            i = i + 1
        return x

    x = Tensor(np.ones((2, 3), np.float32))
    fn(x, Tensor(3, mstype.int32))
    (entry,) = fn._cache.values()
    graph = entry.executable.graph
    assert {n.name for n in graph.nodes} >= {"While"}
    check(graph)
    specs = infer(graph, [TensorSpec((5, 7), mstype.float32), TensorSpec((), mstype.int32)])
    assert specs[id(graph.outputs[0])].shape == (5, 7)
