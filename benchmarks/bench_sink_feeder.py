"""Does sink's feeder thread slow the compiled loop's kernels? (issue 18)

microspore alone, GRAPH_MODE, the batch-16 MLP of ``bench_sink.py``: 200 steps per sample

* ``plain`` -- the compiled training step called from the host on Tensors held in memory
  (no thread besides the main one);
* ``loop, idle feeder`` -- the sink loop (``SinkLoop``: While over GetNext -> step) reading
  a channel filled from memory before the loop starts (capacity 256: its feeder has
  finished and sleeps);
* ``loop, pipeline feeder`` -- the same loop fed as ``Model.train`` feeds it: the dataset
  (``NumpySlicesDataset(...).batch(16)``) through ``Batches.stream``, capacity 16, the
  feeder and ms-data's prefetch thread working while the loop runs.

Per step, thread CPU time (us): inside the kernels (ms-ops' kernel observer), of the whole
main thread, and of the other threads. CPU time, not wall time: a thread waiting for a core
or for the GIL uses none, so the columns compare samples that the neighbours' load made 2-5x
slower in wall time (their cache use still inflates CPU time somewhat, alike for every
variant, as they interleave round by round). Medians.

Usage: ``BENCH_THREADS=1 python benchmarks/bench_sink_feeder.py [--rounds N]``
"""

from __future__ import annotations

import argparse
import itertools
import os
import tempfile
import time

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import load_line, machine
from bench_sink import BATCH, BATCHES, make_inputs, ms_dataset, ms_model

STEPS = 200


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7, metavar="N")
    args = p.parse_args()
    from ms_graph.sink.channel import DataChannel
    from ms_graph.sink.loop import SinkLoop, state_key

    import microspore as ms
    from ms_nn.train.data import Batches
    from ms_ops import dispatch
    from ms_tensor import dtype as mstype

    ms.set_context(mode=ms.GRAPH_MODE)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        make_inputs(os.path.join(tmp, "inputs.npz"))
        data = dict(np.load(os.path.join(tmp, "inputs.npz")))
    net = ms_model(ms, "mlp16", data)._train_network
    net.set_train(True)
    b = BATCH["mlp16"]
    xs, ys = data["mlp16/x"].reshape(BATCHES, b, 784), data["mlp16/y"].reshape(BATCHES, b)
    in_memory = [(xs[i], ys[i]) for i in range(BATCHES)]
    tensors = [(ms.Tensor(x), ms.Tensor(y)) for x, y in in_memory]
    loop = SinkLoop(net, "probe", [((b, 784), mstype.float32), ((b,), mstype.int32)])

    def plain():
        for i in range(STEPS):
            net(*tensors[i % BATCHES])

    def fed(source, capacity, wait):
        def run():
            with DataChannel("probe", source(), capacity=capacity) as ch:
                while wait and len(ch._items) < capacity:
                    time.sleep(0.001)
                start = time.thread_time(), time.process_time()
                loop.run(STEPS, state_key(net))
                return start
        return run

    def pipeline():
        batches = Batches(ms_dataset(ms, "mlp16", data), "probe")
        try:
            yield from batches.stream(None)
        finally:
            batches.close()  # stop ms-data's prefetch thread with the channel

    variants = {"plain": plain,
                "loop, idle feeder": fed(lambda: itertools.cycle(in_memory), 256, True),
                "loop, pipeline feeder": fed(pipeline, 16, False)}
    samples = {k: [] for k in variants}
    for i in range(1 + args.rounds):
        for name, run in variants.items():
            got = sample(run, dispatch)
            if i:  # round 0 warms up
                samples[name].append(got)
    print(machine())
    print(load_line(load))
    print(f"Medians over {args.rounds} rounds of {STEPS} steps, variants interleaved.\n")
    print("| variant | kernels, CPU us/step | main thread | other threads |")
    print("|---|---:|---:|---:|")
    for name, got in samples.items():
        k, m, o = np.median(np.array(got), axis=0)
        print(f"| {name} | {k:.0f} | {m:.0f} | {o:.0f} |")
    return 0


def sample(run, dispatch):
    """``[kernels, main, others]``: CPU us per step of one ``run()`` (which may return the
    thread and process CPU times it started timing at, after its setup)."""
    spent = [0.0]

    def observe(name, kernel):
        def timed_kernel(*args, **kwargs):
            t0 = time.thread_time()
            try:
                return kernel(*args, **kwargs)
            finally:
                spent[0] += time.thread_time() - t0
        return timed_kernel

    previous = dispatch.set_kernel_observer(observe)
    try:
        c0, p0 = time.thread_time(), time.process_time()
        started = run()
        if started is not None:
            c0, p0 = started
        main, process = time.thread_time() - c0, time.process_time() - p0
    finally:
        dispatch.set_kernel_observer(previous)
    return [spent[0] / STEPS * 1e6, main / STEPS * 1e6, (process - main) / STEPS * 1e6]


if __name__ == "__main__":
    raise SystemExit(main())
