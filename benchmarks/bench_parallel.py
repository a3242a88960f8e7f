"""Communication on 2 ranks: microspore's AllReduce operator against raw mpi4py on numpy
buffers (the limit: the same MPI call with nothing around it) and PyTorch's gloo
``all_reduce``; then a data-parallel MLP, 1 rank against 2, bucketed against one allreduce
per tensor.

* ``allreduce``: float32 buffers of 1 KB to 64 MB, sum over 2 ranks. In one MPI job the
  implementations run in turn within each round, in a new random order each round
  (A B C D, C A D B, ...); a sample is the slowest rank's mean time over enough
  back-to-back calls to last ~2 ms (at least one), and each size takes 41 rounds (the
  median is reported: on a loaded machine a sample is a few scheduler slices).
  Bandwidth is bytes / time (algorithm bandwidth).
  ``AllReduce(t)`` (the operator) and ``ops.AllReduce()(t)`` (its Primitive) return a new
  tensor: their eager call skips generic dispatch and receives straight into its result,
  which for 1 MB and more is a recycled array nobody holds any more (ms_parallel.recycle);
  ``ops.communication.all_reduce(t)`` reduces ``t``'s own buffer (MPI_IN_PLACE); all
  three call MPI_Allreduce from C where ms-parallel's optional module is built and the
  MPI has MPICH's ABI (ms_parallel.direct; the report says which path ran), else through
  mpi4py. Raw mpi4py reuses one preallocated receive buffer, at its input's offset within
  a page (where MPICH reduces fastest, as microspore places its results); gloo reduces in
  place.
  (The in-place sum doubles the values every call, so they soon reach inf: adding infs
  costs the CPU no more than adding finite floats, unlike subnormals.)
* ``dp``: an MLP 784-512-512-10 (670k parameters, 6 tensors) trained with Momentum on a
  fixed global batch of 64 (32 per rank on 2 ranks) through ``TrainOneStepCell`` in
  DATA_PARALLEL mode: steps per second with 1 rank and 2 ranks (alternating launches;
  each of the 2 ranks gets half the BLAS threads), and in the 2-rank job the share of
  step time in the gradient reducer's call, bucketed (DDP's 25 MB with a 1 MB first
  bucket, a layer per bucket where it fits: 3 allreduces of 20 KB, 1 MB and 1.6 MB)
  against per tensor (6 allreduces), interleaved. The buckets start during the backward
  pass (overlap), so the reducer's call measures the communication left exposed after
  the backward pass. Then the same step compiled (GRAPH_MODE) on 2 ranks, with
  ``set_compiled_overlap(False)`` and with overlap (the default), interleaved in one job:
  without, the bucket allreduces run after the backward nodes; with, each bucket's
  AllReduceStart runs as soon as its gradients exist and its AllReduceWait before the
  optimizer. Their "reducer" column is the time in the AllReduce / AllReduceWait kernels
  (timed through ms-ops' kernel observer): the communication the step waits for.

The 2 cores are shared by both ranks (and everything else on the machine): on a real
cluster each rank has its own cores, so 2 ranks here cannot be faster than 1.
Usage: ``python benchmarks/bench_parallel.py [--quick] [--case allreduce|dp]``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sys
import tempfile
import time

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import THREADS, arg_parser, load_line, machine, median_iqr, num

SIZES = [1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 26]  # bytes: 1 KB .. 64 MB
CASES = ("allreduce", "dp")
_THREAD_VARS = ("BENCH_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _launch(n, *args):
    """Run this file as ``--worker`` on ``n`` ranks; rank 0's JSON result."""
    from ms_parallel.launch import launch

    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "result.json")
        res = launch(os.path.abspath(__file__), ["--worker", out, *map(str, args)],
                     worker_num=n, timeout=1800)
        if res.returncode:
            raise RuntimeError(f"worker job failed: {res.message}")
        with open(out) as f:
            return json.load(f)


# -- workers (run under the launcher) --------------------------------------------------
def _slowest(comm, seconds):
    from mpi4py import MPI

    return comm.allreduce(seconds, op=MPI.MAX)


def _timed(comm, fn, reps):
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return _slowest(comm, (time.perf_counter() - t0) / reps)


def worker_allreduce(out, rounds):
    from mpi4py import MPI

    import microspore.ops as ops
    from ms_parallel.management import init
    from ms_parallel.recycle import placed
    from ms_parallel.reduce_ops import AllReduce
    from ms_tensor import Tensor

    init()
    comm = MPI.COMM_WORLD
    from ms_parallel.comm_func import all_reduce

    try:
        import torch
        import torch.distributed as dist

        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29517",
                                rank=comm.rank, world_size=comm.size)
    except ImportError:
        torch = None
    results = {}
    for size in SIZES:
        x = np.random.default_rng(comm.rank).standard_normal(size // 4).astype(np.float32)
        # mpi4py at its best: its receive buffer at its input's offset within a page (16
        # bytes further, where np.empty_like puts it here, makes MPICH 1.4-2.5x slower at
        # 16-256 KB: ms_parallel.recycle.placed)
        t, recv = Tensor(x), placed(x.shape, x.dtype, x)
        inplace = Tensor(x.copy())
        prim = ops.AllReduce()
        fns = {"microspore AllReduce": lambda t=t: AllReduce(t),
               "microspore ops.AllReduce()": lambda t=t, prim=prim: prim(t),
               "microspore all_reduce (in place)": lambda t=inplace: all_reduce(t),
               "mpi4py Allreduce": lambda x=x, recv=recv: comm.Allreduce(x, recv)}
        if torch is not None:
            tt = torch.from_numpy(x.copy())
            fns["torch gloo all_reduce"] = lambda tt=tt: dist.all_reduce(tt)
        want = comm.allreduce(x, op=MPI.SUM) if size <= (1 << 22) else None
        if want is not None:
            np.testing.assert_allclose(AllReduce(t).asnumpy(), want, rtol=1e-5, atol=1e-5)
        reps = max(1, int(0.002 / max(_timed(comm, fns["mpi4py Allreduce"], 3), 1e-6)))
        reps = comm.bcast(reps)
        samples = {k: [] for k in fns}
        for i in range(1 + rounds):  # the first round warms up
            # A new order each round (the same on every rank: seeded by the round), so no
            # implementation always runs right after the same one (gloo's, whose threads
            # may still be busy; a rotation would keep A after D every round).
            for k in random.Random(i).sample(list(fns), len(fns)):
                samples[k].append(_timed(comm, fns[k], reps))
        results[size] = {k: v[1:] for k, v in samples.items()}
    if comm.rank == 0:
        from ms_parallel.direct import kernel

        path = "C (ms_parallel.direct)" if kernel() is not None else "mpi4py"
        with open(out, "w") as f:
            json.dump({"results": results, "reps": reps, "path": path}, f)


def _mlp_step(batch):
    import microspore as ms
    import microspore.nn as nn

    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(),
                            nn.Dense(512, 10))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    rng = np.random.default_rng(ms.communication.get_rank())
    x = ms.Tensor(rng.standard_normal((batch, 784)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, batch).astype(np.int32))
    return step, x, y


def worker_dp(out, steps, global_batch=64):
    import microspore as ms
    from microspore.communication import get_group_size, get_rank, init
    from ms_parallel.grad_reducer import DistributedGradReducer

    init()
    n = get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    step, x, y = _mlp_step(global_batch // n)
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    reducers = {"bucketed": step.grad_reducer,
                "per tensor": DistributedGradReducer(step.weights, mean=True, bucket_mb=0)}
    spent = {"t": 0.0}

    class Timed(ms.nn.Cell):
        """A reducer that adds the seconds it takes to ``spent``."""

        def __init__(self, reducer):
            super().__init__()
            self.reducer = reducer

        def overlapping(self):
            return self.reducer.overlapping()

        def construct(self, grads):
            t0 = time.perf_counter()
            out = self.reducer(grads)
            spent["t"] += time.perf_counter() - t0
            return out

    timed = {name: Timed(r) for name, r in reducers.items()}

    result = {}
    for _ in range(3):
        step(x, y)  # warm-up
    for name in (["bucketed", "per tensor"] if n > 1 else ["bucketed"]):
        result[name] = {"step": [], "comm": []}
    for _ in range(steps):
        for name in result:  # interleaved: one step of each, in turn
            step.grad_reducer = timed[name]
            spent["t"] = 0.0
            comm.Barrier()
            t0 = time.perf_counter()
            step(x, y)
            total = time.perf_counter() - t0
            result[name]["step"].append(_slowest(comm, total))
            result[name]["comm"].append(comm.allreduce(spent["t"], op=MPI.MAX))
    if get_rank() == 0:
        with open(out, "w") as f:
            json.dump(result, f)


def worker_dp_graph(out, steps, global_batch=64):
    """The compiled step, overlap off and on (``set_compiled_overlap``): two
    TrainOneStepCells from the same seed, one step of each in turn."""
    import microspore as ms
    from microspore.communication import get_group_size, get_rank, init
    from ms_ops.dispatch import set_kernel_observer
    from ms_parallel.overlap import set_compiled_overlap

    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    steps_by = {}
    for name, on in (("compiled", False), ("compiled, overlap", True)):
        set_compiled_overlap(on)
        steps_by[name], x, y = _mlp_step(global_batch // get_group_size())
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    spent = {"t": 0.0}

    def observe(name, kernel):
        if name not in ("AllReduce", "AllReduceWait"):
            return kernel

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            got = kernel(*args, **kwargs)
            spent["t"] += time.perf_counter() - t0
            return got

        return timed

    set_kernel_observer(observe)
    for step in steps_by.values():
        for _ in range(3):
            step(x, y)  # compiles, then warms up
    result = {name: {"step": [], "comm": []} for name in steps_by}
    for _ in range(steps):
        for name, step in steps_by.items():  # interleaved: one step of each, in turn
            spent["t"] = 0.0
            comm.Barrier()
            t0 = time.perf_counter()
            step(x, y)
            result[name]["step"].append(_slowest(comm, time.perf_counter() - t0))
            result[name]["comm"].append(comm.allreduce(spent["t"], op=MPI.MAX))
    if get_rank() == 0:
        with open(out, "w") as f:
            json.dump(result, f)


# -- driver ----------------------------------------------------------------------------
def _size(b):
    return f"{b >> 20} MB" if b >= 1 << 20 else f"{b >> 10} KB"


def report_allreduce(rounds):
    job = _launch(2, "allreduce", rounds)
    data = job["results"]
    impls = list(next(iter(data.values())))
    print("\n### AllReduce (sum, float32, 2 ranks on this machine)\n")
    print(f"microspore's eager path: {job['path']}. Last columns: the operator AllReduce, "
          "its Primitive (a new tensor per call) and the in-place all_reduce over mpi4py; "
          f"medians of {rounds} interleaved samples.\n")
    print("| size | " + " | ".join(f"{k}: µs (GB/s)" for k in impls) +
          " | AllReduce / mpi4py | ops.AllReduce() / mpi4py | all_reduce / mpi4py |")
    print("|---|" + "---|" * (len(impls) + 3))
    worst = worst_in = 0.0
    for size, per in data.items():
        med = {k: median_iqr(v)[0] for k, v in per.items()}
        cells = [f"{num(med[k] * 1e6)} ({num(int(size) / med[k] / 1e9)})" for k in impls]
        ratio = med["microspore AllReduce"] / med["mpi4py Allreduce"]
        ratio_prim = med["microspore ops.AllReduce()"] / med["mpi4py Allreduce"]
        ratio_in = med["microspore all_reduce (in place)"] / med["mpi4py Allreduce"]
        worst, worst_in = max(worst, ratio, ratio_prim), max(worst_in, ratio_in)
        print(f"| {_size(int(size))} | " + " | ".join(cells) +
              f" | {ratio:.2f} | {ratio_prim:.2f} | {ratio_in:.2f} |")
    return worst, worst_in


@contextlib.contextmanager
def _blas_threads(n):
    """Each of ``n`` ranks gets its share of the BLAS threads (the workers' _common reads
    BENCH_THREADS): two ranks with two spinning OpenBLAS threads each on 2 cores made the
    2-rank step ~10x slower."""
    saved = {v: os.environ.get(v) for v in _THREAD_VARS}
    os.environ.update({v: str(max(1, THREADS // n)) for v in _THREAD_VARS})
    try:
        yield
    finally:
        for v, value in saved.items():
            if value is None:
                del os.environ[v]
            else:
                os.environ[v] = value


def report_dp(rounds, steps):
    one = []
    names = ("bucketed", "per tensor", "compiled", "compiled, overlap")
    comm = {name: [] for name in names}
    step2 = {name: [] for name in names}
    for _ in range(rounds):
        one += _launch(1, "dp", steps)["bucketed"]["step"]
        with _blas_threads(2):
            r = _launch(2, "dp", steps)
            r.update(_launch(2, "dp_graph", steps))
        for name in comm:
            step2[name] += r[name]["step"]
            comm[name] += r[name]["comm"]
    s1 = median_iqr(one)[0]
    print("\n### Data-parallel MLP (global batch 64, Momentum; PyNative unless compiled)\n")
    print("| run | ms/step | steps/s | reducer ms/step | reducer share |")
    print("|---|---|---|---|---|")
    print(f"| 1 rank | {num(s1 * 1e3)} | {num(1 / s1)} | - | - |")
    for name in comm:
        s, c = median_iqr(step2[name])[0], median_iqr(comm[name])[0]
        print(f"| 2 ranks, {name} | {num(s * 1e3)} | {num(1 / s)} | {num(c * 1e3)} | "
              f"{c / s:.0%} |")
    overlap = median_iqr(step2["compiled, overlap"])[0] / median_iqr(step2["compiled"])[0]
    print(f"\nCompiled step, overlap on / off: {overlap:.2f}")
    return (median_iqr(step2["bucketed"])[0] / median_iqr(step2["per tensor"])[0],
            median_iqr(comm["bucketed"])[0] / median_iqr(comm["per tensor"])[0], overlap)


def main(argv=None) -> int:
    p = arg_parser(__doc__, CASES)
    args, rest = p.parse_known_args(argv)
    if args.worker:
        kind, *extra = rest
        workers = {"allreduce": worker_allreduce, "dp": worker_dp,
                   "dp_graph": worker_dp_graph}
        workers[kind](args.worker, *map(int, extra))
        return 0
    cases = args.case or CASES
    before = os.getloadavg()[0]
    print(machine())
    print(f"mpiexec from MPICH's wheel; 2 ranks share the machine's cores. "
          f"{'QUICK RUN. ' if args.quick else ''}")
    goals = []
    if "allreduce" in cases:
        worst, worst_in = report_allreduce(5 if args.quick else 41)
        for what, w in (("the AllReduce operator (both forms)", worst),
                        ("in-place all_reduce", worst_in)):
            goals.append(f"{what} within 10% of raw mpi4py, 1 KB-64 MB: worst ratio "
                         f"{w:.2f} ({'met' if w <= 1.10 else 'NOT met'})")
    if "dp" in cases:
        step, ratio, overlap = report_dp(1 if args.quick else 3, 10 if args.quick else 40)
        for what, x in (("step time", step), ("reducer time after backward", ratio)):
            goals.append(f"bucketed at least as fast as per tensor, {what}: ratio "
                         f"{x:.2f} ({'met' if x <= 1.0 else 'NOT met'})")
    print()
    for g in goals:
        print(f"- goal check: {g}")
    if "dp" in cases:  # a measurement, not a goal: the compiled overlap is off by default
        print(f"- compiled step with overlap (ms_parallel.overlap.set_compiled_overlap(True)) "
              f"over without: {overlap:.2f}")
    print(f"- {load_line(before)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
