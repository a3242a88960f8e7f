"""Run by test_grad_reducer.py on 2 ranks: the reducer's eager (non-blocking) path and its
operator path agree with numpy; in a traced graph it is one AllReduce per bucket."""

import numpy as np
from ms_graph import jit, trace

from ms_parallel.grad_reducer import DistributedGradReducer
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor

init()
r, n = get_rank(), get_group_size()
shapes = [(4, 3), (3,), (2, 2, 2), (5,)]
params = [Parameter(Tensor(np.zeros(s, np.float32)), name=f"p{i}") for i, s in enumerate(shapes)]


def grads_of(k):
    return [np.random.default_rng(10 * k + i).standard_normal(s).astype(np.float32)
            for i, s in enumerate(shapes)]


want_sum = [sum(grads_of(k)[i] for k in range(n)) for i in range(len(shapes))]
mine = tuple(Tensor(g) for g in grads_of(r))
for mean in (False, True):
    # per tensor, buckets of ~100 bytes, 25 MB (one bucket, and the first layer's own)
    for mb in (0, 1e-4, None):
        reducer = DistributedGradReducer(params, mean=mean, bucket_mb=mb)
        want = [w / n if mean else w for w in want_sum]
        for path in ("eager", "ops"):
            got = reducer._eager(mine, reducer.buckets(mine)) if path == "eager" else \
                reducer._as_ops(mine, reducer.buckets(mine))
            for g, w in zip(got, want):
                np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6,
                                           err_msg=f"{path} mean={mean} bucket_mb={mb}")
        n_buckets = len(reducer.buckets(mine))
        assert n_buckets == (4 if mb == 0 else 2 if mb is None else n_buckets)
        graph = trace(lambda *g, reducer=reducer: reducer(g), *mine)
        ops = [node.op.name for node in graph.nodes if not isinstance(node.op, str)]
        reduce_op = "AllReduceStart" if reducer.overlap else "AllReduce"  # overlap's pair
        assert ops.count(reduce_op) == n_buckets, (ops, n_buckets)

compiled = jit(lambda *g: DistributedGradReducer(params, mean=True)(g))
for scale in (1.0, 2.0):
    got = compiled(*(g * scale for g in mine))
    for g, w in zip(got, want_sum):
        np.testing.assert_allclose(g.asnumpy(), w * scale / n, rtol=1e-6, atol=1e-6)
print(f"rank {r} of {n}: reducer ok", flush=True)

# -- overlap: buckets start during the backward pass, before the first layer's gradients
import ms_nn as nn  # noqa: E402
from ms_parallel.context import set_auto_parallel_context  # noqa: E402

set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
net = nn.SequentialCell(nn.Dense(6, 5), nn.ReLU(), nn.Dense(5, 4), nn.ReLU(), nn.Dense(4, 3))
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
reducer = DistributedGradReducer(step.weights, mean=True, bucket_mb=1e-6)  # a bucket a tensor
events = []
started = reducer._start


def spy_start(parts):
    events.append("start")
    return started(parts)


reducer._start = spy_start
step.grad_reducer = reducer
data = np.random.default_rng(r).standard_normal((4, 6)).astype(np.float32)
x, y = Tensor(data), Tensor(np.zeros((4, 3), np.float32))
with reducer.overlapping():
    loss, grads = step.loss_and_grads((x, y))
    assert len(events) == len(step.weights), events  # every bucket started in backward
early = reducer(grads)
assert len(events) == len(step.weights), "the reducer restarted buckets already in flight"
late = reducer._eager(grads, reducer.buckets(grads))
for a, b in zip(early, late):
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
step(x, y)  # TrainOneStepCell enters overlapping() itself
assert len(events) == 2 * len(step.weights) + len(step.weights), events
print(f"rank {r} of {n}: overlap ok", flush=True)

# -- ranks that finish gradients in different orders still issue buckets in one order
from ms_autodiff.ready import gradient_ready_callback  # noqa: E402

reducer = DistributedGradReducer(params, mean=False, bucket_mb=1e-6)  # a bucket a tensor
order = list(range(len(params))) if r % 2 else list(reversed(range(len(params))))
with reducer.overlapping():
    ready = gradient_ready_callback()
    for i in order:
        ready(params[i], mine[i])
got = reducer(mine)
for g, w in zip(got, want_sum):
    np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6)
print(f"rank {r} of {n}: order ok", flush=True)
