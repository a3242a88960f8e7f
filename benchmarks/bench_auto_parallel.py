"""Strategy search time, and the cost model's predicted step time against a measured one.

* ``search``: seconds for recursive programming and dynamic programming to plan transformer
  stacks (batch 16, sequence 512, hidden 4096, 32 heads; 29 operators per layer), an MLP and
  a wide feed-forward block on 8, 64 and 1024 simulated devices (nodes of 8), and the
  recursive plan's predicted step time over the dynamic program's (1.00 = optimal). Dynamic
  programming runs only where it finishes in reasonable time (it enumerates every strategy).
  Each search starts with empty redistribution caches; ``rec cpu s`` is the recursive
  search's CPU time (the wall time on a shared machine is several times it). ``--full``
  adds 24 layers on 1024 devices (the issue's goal: under 10 s).
* ``step``: a Megatron-sharded MLP (rows 512, 1024 -> 2048 -> 1024 -> 16, float32) trained
  by ``ShardedNet`` on 1, 2 and 4 real ranks through the launcher: the median measured
  seconds of a forward + backward + gradient reduction step against the cost model's
  prediction for a topology calibrated on this machine (flops from a timed MatMul, link
  bandwidth and latency from timed AllReduces of 4 MB and 8 bytes on the same ranks).

All ranks share this machine's cores, so more ranks are not faster here.
Usage: ``python benchmarks/bench_auto_parallel.py [--quick] [--full] [--case search|step]``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

import _common  # first: it sets the thread counts before numpy loads
import numpy as np

CASES = ("search", "step")


def _search(quick: bool, full: bool):
    from ms_parallel.auto import models, redistribution
    from ms_parallel.auto.cost import CostModel
    from ms_parallel.auto.dp import dynamic_programming
    from ms_parallel.auto.rec import recursive_programming
    from ms_parallel.auto.topology import Topology

    cases = [("mlp 1024-4096-4096-1024", lambda: models.mlp(4096, (1024, 4096, 4096, 1024)),
              (8, 64, 1024), (8, 64, 1024)),
             ("wide ffn 4096x65536", lambda: models.wide_ffn(64, 4096, 65536),
              (8, 64, 1024), (8, 64, 1024)),
             ("transformer x1", lambda: models.transformer(16, 512, 4096, 32, 1),
              (8, 64, 1024), (8,)),
             ("transformer x4", lambda: models.transformer(16, 512, 4096, 32, 4),
              (8, 64, 1024), (8,))]
    if quick:
        cases = cases[:1]
    if full:
        cases.append(("transformer x24", lambda: models.transformer(16, 512, 4096, 32, 24),
                      (1024,), ()))
    print(f"{'model':<26} {'ops':>5} {'devices':>7} {'rec s':>8} {'rec cpu s':>9} {'dp s':>8} "
          f"{'rec/dp':>7}")
    for name, build, devices, dp_devices in cases:
        for n in devices:
            g = build()
            topo = Topology.parse(f"8x{n // 8}")
            _forget(redistribution)
            model = CostModel(g, topo)
            t, cpu = time.perf_counter(), time.process_time()
            rec = recursive_programming(model)
            t_rec, cpu_rec = time.perf_counter() - t, time.process_time() - cpu
            dp_s, ratio = "-", "-"
            if n in dp_devices:
                _forget(redistribution)
                model = CostModel(g, topo)
                t = time.perf_counter()
                dp = dynamic_programming(model)
                dp_s = f"{time.perf_counter() - t:.2f}"
                ratio = f"{model.evaluate(rec)['total'] / model.evaluate(dp)['total']:.3f}"
            print(f"{name:<26} {len(g.nodes):>5} {n:>7} {t_rec:>8.2f} {cpu_rec:>9.2f} {dp_s:>8} "
                  f"{ratio:>7}",
                  flush=True)


def _forget(redistribution):
    """Each search starts from empty redistribution caches."""
    for cache in (redistribution._known, redistribution._estimates, redistribution._rollouts):
        cache.clear()


def _step_worker(steps: int):
    from ms_autodiff import value_and_grad
    from ms_nn import Cell
    from ms_ops import Add, MatMul, ReduceMean, ReLU, SoftmaxCrossEntropyWithLogits
    from ms_parallel.auto.execute import ShardedNet
    from ms_parallel.auto.graph import capture
    from ms_parallel.auto.planner import plan
    from ms_parallel.auto.topology import Topology
    from ms_parallel.management import get_group_size, get_rank, init
    from ms_parallel.reduce_ops import AllReduce
    from ms_tensor import Parameter, Tensor

    init()
    rank, n = get_rank(), get_group_size()
    rng = np.random.default_rng(0)

    def param(name, *shape):
        return Parameter(Tensor((rng.standard_normal(shape) * 0.05).astype(np.float32)),
                         name=name)

    class MLP(Cell):
        def __init__(self):
            super().__init__()
            self.w1, self.w2, self.w3 = (param("w1", 1024, 2048), param("w2", 2048, 1024),
                                         param("w3", 1024, 16))
            self.mm1 = MatMul().shard(((1, 1), (1, n)))
            self.mm2 = MatMul().shard(((1, n), (n, 1)))
            self.mm3 = MatMul()
            self.relu, self.add = ReLU(), Add()
            self.loss, self.mean = SoftmaxCrossEntropyWithLogits(), ReduceMean()

        def construct(self, x, labels):
            h = self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)
            return self.mean(self.loss(self.mm3(self.relu(h), self.w3), labels)[0])

    net = MLP()
    x = Tensor(rng.standard_normal((512, 1024)).astype(np.float32))
    labels = Tensor(np.eye(16, dtype=np.float32)[rng.integers(0, 16, 512)])
    full = {p.name: p.asnumpy().copy() for p in net.trainable_params()}

    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    t = time.perf_counter()
    for _ in range(5):
        a @ a
    flops = 5 * 2 * 1024 ** 3 / (time.perf_counter() - t)
    big, small = Tensor(np.ones(1 << 20, np.float32)), Tensor(np.ones(2, np.float32))
    t_big = t_small = 0.0
    if n > 1:
        for _ in range(2):
            AllReduce(big)
        t = time.perf_counter()
        for _ in range(5):
            AllReduce(big)
        t_big = (time.perf_counter() - t) / 5
        t = time.perf_counter()
        for _ in range(50):
            AllReduce(small)
        t_small = (time.perf_counter() - t) / 50
    latency = max(t_small / (2 * max(n - 1, 1)), 1e-7)
    bandwidth = 2 * (n - 1) / n * 4 * (1 << 20) / max(t_big - 2 * (n - 1) * latency, 1e-9) \
        if n > 1 else 1e12
    topo = Topology(device_num=n, devices_per_node=n, intra_bandwidth=bandwidth,
                    intra_latency=latency, flops=flops, memory_bandwidth=5e9)
    result = plan(capture(net, x, labels), topo, "sharding_propagation")
    sharded = ShardedNet(result, rank, full)
    names = sorted(sharded.params)
    step = value_and_grad(sharded.loss_for_grad, None, [sharded.params[k] for k in names])
    times = []
    for _ in range(steps + 1):
        t = time.perf_counter()
        _, grads = step(x, labels)
        sharded.reduce_gradients(dict(zip(names, grads)))
        times.append(time.perf_counter() - t)
    measured = statistics.median(times[1:])
    c = result.cost
    if rank == 0:
        print(json.dumps({"ranks": n, "measured": measured, "predicted": c["total"],
                          "compute": c["compute"], "communication": c["communication"],
                          "flops": flops, "bandwidth": bandwidth, "latency": latency}),
              flush=True)


def _step(quick: bool):
    from ms_parallel.testing import run_ranks

    steps = 2 if quick else 6
    print(f"{'ranks':>5} {'measured s':>11} {'predicted s':>12} {'compute':>9} {'comm':>9} "
          f"{'GFLOP/s':>8} {'link GB/s':>9} {'latency us':>10}")
    for n in (1, 2, 4):
        proc = run_ranks(n, os.path.abspath(__file__), "--worker", str(steps), timeout=600)
        if proc.returncode:
            sys.exit(proc.stdout + proc.stderr)
        r = json.loads([line for line in proc.stdout.splitlines() if line.startswith("{")][0])
        print(f"{n:>5} {r['measured']:>11.4f} {r['predicted']:>12.4f} {r['compute']:>9.4f} "
              f"{r['communication']:>9.4f} {r['flops'] / 1e9:>8.1f} "
              f"{r['bandwidth'] / 1e9:>9.2f} {r['latency'] * 1e6:>10.1f}", flush=True)


def main():
    p = _common.arg_parser(__doc__, CASES)
    p.add_argument("--full", action="store_true", help="add 24 layers on 1024 devices")
    args = p.parse_args()
    if args.worker:
        _step_worker(int(args.worker))
        return
    print(_common.machine())
    before = os.getloadavg()[0]
    for case in args.case or CASES:
        print(f"\n## {case}")
        _search(args.quick, args.full) if case == "search" else _step(args.quick)
    print(_common.load_line(before))


if __name__ == "__main__":
    main()
