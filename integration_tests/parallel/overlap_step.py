"""A compiled data-parallel step whose bucket reductions overlap the backward pass (the
default), checked at every step on every rank against the same step in PyNative, the
compiled step without overlap, and one process training on the whole global batch; run
by test_overlap.py on 2 and 4 ranks. Prints ``ok K`` from rank 0.

usage: overlap_step.py --steps K
"""

import argparse

import numpy as np

import microspore as ms
import microspore.nn as nn
from microspore.communication import get_group_size, get_rank, init
from ms_parallel.overlap import set_compiled_overlap
from ms_parallel.overlap_ops import in_flight


def _step(reduced: bool):
    ms.set_seed(3)
    net = nn.SequentialCell(nn.Dense(20, 48), nn.ReLU(), nn.Dense(48, 32), nn.Tanh(),
                            nn.Dense(32, 5))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if not reduced:  # the single-process reference: no reducer at all
        ms.reset_auto_parallel_context()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    return step


def _params(step):
    return [p.asnumpy() for p in step.weights]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=4)
    args = p.parse_args()
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    # small buckets: one per layer, so that two are in flight during the backward pass
    ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size",
                                                            "config": 0.004}})
    eager = _step(True)
    off = _step(True)  # the default
    set_compiled_overlap(True)
    on = _step(True)
    set_compiled_overlap(False)
    single = _step(False)
    assert on.grad_reducer.overlap and not off.grad_reducer.overlap  # set_compiled_overlap
    assert len(on.grad_reducer.buckets(on.weights)) >= 3
    batch = 8 * size
    for k in range(args.steps):
        rng = np.random.default_rng(k)
        x = rng.standard_normal((batch, 20)).astype(np.float32)
        y = rng.integers(0, 5, batch).astype(np.int32)
        mine = slice(rank * 8, rank * 8 + 8)
        xs, ys = ms.Tensor(x[mine]), ms.Tensor(y[mine])
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = eager(xs, ys).asnumpy()
        want_single = single(ms.Tensor(x), ms.Tensor(y)).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        got = on(xs, ys).asnumpy()
        got_off = off(xs, ys).asnumpy()
        assert in_flight() == 0, "an allreduce was left running after the step"
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=f"step {k}: loss")
        np.testing.assert_array_equal(got, got_off, err_msg=f"step {k}: loss vs no overlap")
        mean = ms.communication.comm_func.all_reduce(ms.Tensor(got))[0].asnumpy() / size
        np.testing.assert_allclose(mean, want_single, rtol=1e-5,
                                   err_msg=f"step {k}: mean loss vs one process")
        for i, (a, b, c, d) in enumerate(zip(_params(on), _params(eager), _params(off),
                                             _params(single))):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7,
                                       err_msg=f"step {k}: param {i} vs PyNative")
            np.testing.assert_array_equal(a, c, err_msg=f"step {k}: param {i} vs no overlap")
            np.testing.assert_allclose(a, d, rtol=1e-4, atol=1e-6,
                                       err_msg=f"step {k}: param {i} vs one process")
        if rank == 0:
            print(f"ok {k}", flush=True)


if __name__ == "__main__":
    main()
