"""Four threads at once doing grad, first calls of jit functions and inference get
exact results (issue 11: a shared tracer corrupted cached graphs)."""


import ms_graph
import numpy as np

import ms_ops as ops
from ms_autodiff import grad
from ms_autodiff.testing import run_concurrently
from ms_tensor import Tensor

N = 4


def _f(x, y):
    z = ops.tanh(x) * y
    if z.sum() > 0:
        z = z + x
    else:
        z = z - y
    return z * 2


def _f_np(x, y):
    z = np.tanh(x) * y
    return (z + x if z.sum() > 0 else z - y) * 2


def test_first_calls_of_one_jit_function_from_four_threads():
    for _ in range(5):
        f = ms_graph.jit(_f)  # a new function: every thread's call may be the first
        inputs = [np.random.default_rng(s).standard_normal((2, 3)).astype(np.float32)
                  for s in range(N + 1)]

        def worker(i, f=f, inputs=inputs):
            def run():
                for k in range(10):
                    x, y = inputs[(i + k) % N], inputs[(i + k + 1) % N]
                    np.testing.assert_allclose(f(Tensor(x), Tensor(y)).asnumpy(),
                                               _f_np(x, y), rtol=1e-5, atol=1e-6)
            return run

        run_concurrently([worker(i) for i in range(N)])
        assert f.misses == 1


def test_grad_jit_first_calls_and_inference_at_once():
    infer = ms_graph.jit(_f)
    infer(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)))

    def grads(seed):
        rng = np.random.default_rng(seed)
        for _ in range(30):
            x = rng.standard_normal(4).astype(np.float32)
            g = grad(lambda t: (t * t * t).sum())(Tensor(x)).asnumpy()
            np.testing.assert_allclose(g, 3 * x * x, rtol=1e-5)

    def first_calls(seed):
        rng = np.random.default_rng(seed)
        for n in range(1, 16):
            g = ms_graph.jit(lambda a, b: ops.relu(a - b) * 3)
            a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
            np.testing.assert_allclose(g(Tensor(a), Tensor(b)).asnumpy(),
                                       np.maximum(a - b, 0) * 3, rtol=1e-6)

    def inference(seed):
        rng = np.random.default_rng(seed)
        for _ in range(40):
            x, y = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
            np.testing.assert_allclose(infer(Tensor(x), Tensor(y)).asnumpy(), _f_np(x, y),
                                       rtol=1e-5, atol=1e-6)

    def grad_of_jit(seed):
        rng = np.random.default_rng(seed)
        cube = ms_graph.jit(lambda t: (t * t * t).sum())
        for _ in range(15):
            x = rng.standard_normal(4).astype(np.float32)
            np.testing.assert_allclose(grad(cube)(Tensor(x)).asnumpy(), 3 * x * x, rtol=1e-5)

    run_concurrently([lambda: grads(0), lambda: first_calls(1), lambda: inference(2),
          lambda: grad_of_jit(3)])
    assert infer.misses == 1
