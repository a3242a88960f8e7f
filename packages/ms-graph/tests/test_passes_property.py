"""All passes together keep the values: random operator chains, traced, optimized, run.

Each chain mixes what every pass looks for: elementwise runs (fusion), identities such as
``x * 1`` and transpose pairs (algebraic), constant-only subexpressions (folding), repeated
subexpressions (CSE), a dead branch (DCE), a matmul and reductions (fusion boundaries).
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from ms_graph.executor import Executable
from ms_graph.infer import check
from ms_graph.passes import run_all
from ms_graph.trace import trace

from ms_ops.defs import activation, arithmetic, array, linalg, math_unary, reduction
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

A, M = arithmetic, math_unary
UNARY = {  # bounded, so float32 chains stay far from overflow
    "neg": A.Neg, "abs": A.Abs, "tanh": activation.Tanh, "sigmoid": activation.Sigmoid,
    "relu": activation.ReLU,
    "square_tanh": lambda v: A.Square(activation.Tanh(v)),
    "exp_tanh": lambda v: M.Exp(activation.Tanh(v)),
    "sqrt": lambda v: M.Sqrt(A.Add(A.Abs(v), 1.0)),
    "log": lambda v: M.Log(A.Add(A.Square(v), 1)),
}
STEPS = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(sorted(UNARY))),
    st.tuples(st.just("scalar"), st.sampled_from(["Add", "Sub", "Mul", "Div"]),
              st.sampled_from([1, 0, 2.5, -0.5])),
    st.tuples(st.just("input"), st.sampled_from(["Add", "Mul", "Maximum", "Minimum", "Pow"])),
    st.tuples(st.sampled_from(["matmul", "reduce", "const", "dup", "identity", "dead"])),
)


def _chain(steps):
    def fn(x, w):
        v = x
        for step in steps:
            kind = step[0]
            if kind == "unary":
                v = UNARY[step[1]](v)
            elif kind == "scalar":
                op, c = getattr(A, step[1]), step[2]
                v = op(v, 1.5 if (op is A.Div and c == 0) else c)
            elif kind == "input":
                if step[1] == "Pow":  # a scalar exponent on a positive base
                    v = A.Pow(A.Add(A.Abs(v), 0.5), 1.5)
                else:
                    v = getattr(A, step[1])(v, x)
            elif kind == "matmul":
                v = activation.Tanh(linalg.MatMul(v, w))
            elif kind == "reduce":
                v = A.Sub(v, reduction.ReduceMean(v, (1,), keep_dims=True))
            elif kind == "const":  # folds to one constant
                c = A.Mul(Tensor(np.float32(2)), A.Add(Tensor(np.float32(0.25)), 0.5))
                v = A.Add(v, array.Cast(c, v.dtype))
            elif kind == "dup":
                v = A.Add(A.Mul(v, 0.5), A.Mul(v, 0.5))
            elif kind == "identity":
                t = array.Transpose(array.Transpose(v, (1, 0)), (1, 0))
                v = A.Mul(array.Reshape(array.Reshape(t, (12,)), (3, 4)), 1)
            else:  # computed, never used
                M.Exp(A.Mul(v, 3.0))
        return v

    return fn


@settings(max_examples=60, deadline=None)
@given(st.lists(STEPS, min_size=1, max_size=8), st.sampled_from([np.float32, np.float64]),
       st.integers(0, 2**32 - 1))
def test_optimized_graph_gives_eager_values(steps, dtype, seed):
    rng = np.random.default_rng(seed)
    x = Tensor(rng.standard_normal((3, 4)).astype(dtype))
    w = Tensor((rng.standard_normal((4, 4)) * 0.5).astype(dtype))
    fn = _chain(steps)
    eager = fn(x, w).asnumpy()
    graph = trace(fn, x, w)
    plain = Executable(graph).run_arrays([x.asnumpy(), w.asnumpy()])[0]
    np.testing.assert_array_equal(plain, eager)
    n_before = len(graph.nodes)
    check(graph)  # inference over the IR gives every recorded spec
    optimized = run_all(graph)
    check(optimized)  # and the passes keep them
    assert len(optimized.nodes) <= n_before
    got = Executable(optimized).run_arrays([x.asnumpy(), w.asnumpy()])[0]
    assert got.dtype == eager.dtype and got.shape == eager.shape
    tol = {"rtol": 2e-5, "atol": 2e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-13}
    np.testing.assert_allclose(got, eager, **tol)
    assert mstype.from_numpy(got.dtype) is optimized.outputs[0].spec.dtype
