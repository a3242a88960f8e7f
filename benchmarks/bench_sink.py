"""Data sink: training steps per second of ``Model.train`` with ``dataset_sink_mode`` False
and True (``sink_size`` 100), microspore against MindSpore and PyTorch on the CPU.

Cases (one step = forward, backward and the Momentum update, float32, fed by a dataset):

* ``mlp16`` / ``mlp64`` -- Dense 784-512-512-10 with ReLU, batch 16 / 64;
* ``lenet`` -- the seed's LeNet5 on 1x32x32 images, batch 32.

A sample is one ``Model.train(2, ds, dataset_sink_mode=..., sink_size=100)`` over a
dataset of 100 batches (``NumpySlicesDataset(...).batch(B, drop_remainder=True)``), so 200
steps, timed from the call to its return. microspore and MindSpore run the same script in
PyNative and in GRAPH_MODE; PyTorch eager trains over a ``DataLoader`` of the same batches
(no sink exists there). Every framework runs warm in its own process (``_workers.py``),
stopped while the others run, and samples interleave round by round (A B A B ...); the
table shows medians. Before timing, each one's loss after 5 steps is compared with
microspore's and a framework that differs is dropped.

"outside kernels": the share of microspore's step time not spent inside operator kernels,
measured in one extra run with ms-ops' kernel observer timing every kernel call (its own
overhead, a few hundred ns per kernel, counts as outside); "n/a" where ms-ops has none.
The same run gives a second table of CPU time per step: in the kernels, in the whole main
thread and in the other threads (sink's feeder and the dataset's prefetcher). Load affects
them less than wall times (a thread waiting for a core or the GIL uses no CPU; the
neighbours' cache use still inflates them), and main / kernels of the plain loop bounds what
any sink can gain: a sink that left nothing but the kernels on the main thread.

Usage: ``python benchmarks/bench_sink.py [--quick | --rounds N] [--case mlp16|mlp64|lenet]``
(``BENCH_THREADS=1`` on a loaded 2-core machine, see ``_common.py``)
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
import time

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import (
    START_ENV,
    THREADS,
    arg_parser,
    check_agreement,
    load_line,
    machine,
    median_iqr,
    num,
    print_notes,
    rounds_line,
)
from _workers import (
    TORCH_MISSING,
    Worker,
    import_torch,
    mindspore_cpu,
    reply_channel,
    serve,
    start_worker,
)

CASES = ("mlp16", "mlp64", "lenet")
BATCH = {"mlp16": 16, "mlp64": 64, "lenet": 32}
BATCHES, EPOCHS, SINK_SIZE = 100, 2, 100
CHECK_STEPS = 5
LR, MOMENTUM = 0.01, 0.9
PLAN = {"mlp16": (7, 1), "mlp64": (5, 1), "lenet": (3, 1)}  # rounds, warm-up
QUICK_PLAN = dict.fromkeys(CASES, (1, 1))


def network(ms, case):
    nn = ms.nn
    if case != "lenet":
        return nn.SequentialCell([nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(),
                                  nn.Dense(512, 10)])

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
            self.fc1, self.fc2, self.fc3 = nn.Dense(400, 120), nn.Dense(120, 84), nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = x.reshape(x.shape[0], -1)
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    return LeNet5()


def make_inputs(path: str) -> None:
    import microspore as ms

    rng = np.random.default_rng(0)
    arrays = {}
    for case in CASES:
        for name, p in network(ms, case).parameters_and_names():
            shape = tuple(p.shape)
            bound = 1 / np.sqrt(np.prod(shape[1:]) if len(shape) > 1 else shape[0])
            arrays[f"{case}/{name}"] = rng.uniform(-bound, bound, shape).astype(np.float32)
        n = BATCHES * BATCH[case]
        shape = (n, 784) if case != "lenet" else (n, 1, 32, 32)
        arrays[f"{case}/x"] = rng.standard_normal(shape).astype(np.float32)
        arrays[f"{case}/y"] = rng.integers(0, 10, n).astype(np.int32)
    np.savez(path, **arrays)


# --- microspore and MindSpore: the same Model.train code ------------------------------------
def ms_model(ms, case, data):
    net = network(ms, case)
    for name, p in net.parameters_and_names():
        p.set_data(ms.Tensor(data[f"{case}/{name}"]))
    loss = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return ms.Model(net, loss, ms.nn.Momentum(net.trainable_params(), LR, MOMENTUM))


def ms_dataset(ms, case, data):
    dataset = importlib.import_module(ms.__name__ + ".dataset")
    ds = dataset.NumpySlicesDataset((data[f"{case}/x"], data[f"{case}/y"]),
                                    column_names=["x", "y"], shuffle=False)
    return ds.batch(BATCH[case], drop_remainder=True)


def last_loss(ms):
    """A callback keeping the last loss Model.train reports."""
    class Last(ms.Callback):
        value = None

        def on_train_step_end(self, run_context):
            self.value = float(run_context.original_args().net_outputs.asnumpy())

    return Last()


def worker_cases():
    """The cases the driver asked for (a worker builds only those)."""
    return os.environ.get("BENCH_CASES", ",".join(CASES)).split(",")


def ms_runs(ms, data, sink: bool, observer=None):
    runs, checks = {}, {}
    for case in worker_cases():
        model, ds = ms_model(ms, case, data), ms_dataset(ms, case, data)

        def run(model=model, ds=ds):
            t0 = time.perf_counter()
            model.train(EPOCHS, ds, dataset_sink_mode=sink, sink_size=SINK_SIZE)
            return (time.perf_counter() - t0) / (EPOCHS * SINK_SIZE)

        def check(case=case):
            fresh, last = ms_model(ms, case, data), last_loss(ms)
            fresh.train(1, ms_dataset(ms, case, data).take(CHECK_STEPS), callbacks=[last],
                        dataset_sink_mode=sink, sink_size=CHECK_STEPS)
            return [last.value]

        runs[case], checks[case] = run, check
        if observer is not None:
            runs[f"{case}/outside"] = lambda run=run: observer(run)
    return runs, checks


def kernel_share(set_observer):
    """``measure(run)``: ``[share, kernels, main, others]``: the share of ``run``'s wall
    time outside kernels, and per step the CPU time (us) of the kernels, of the whole main
    thread and of the process's other threads (the sink's feeder, the dataset's
    prefetcher). A thread waiting for a core or for the GIL uses no CPU time, so these
    suffer less from the load than wall times (see module doc)."""
    def measure(run):
        spent, cpu = [0.0], [0.0]

        def observe(name, kernel):
            def timed_kernel(*args, **kwargs):
                t0, c0 = time.perf_counter(), time.thread_time()
                try:
                    return kernel(*args, **kwargs)
                finally:
                    spent[0] += time.perf_counter() - t0
                    cpu[0] += time.thread_time() - c0
            return timed_kernel

        previous = set_observer(observe)
        try:
            t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
            run()
            total = time.perf_counter() - t0
            main, process = time.thread_time() - c0, time.process_time() - p0
        finally:
            set_observer(previous)
        steps = EPOCHS * SINK_SIZE / 1e6
        return [1 - spent[0] / total, cpu[0] / steps, main / steps, (process - main) / steps]
    return measure


def microspore_worker_main(data_path: str) -> int:
    reply = reply_channel()
    import microspore as ms
    from ms_ops import dispatch

    ms.set_context(mode=ms.GRAPH_MODE if os.environ["BENCH_MODE"] == "graph"
                   else ms.PYNATIVE_MODE)
    data = dict(np.load(data_path))
    setter = getattr(dispatch, "set_kernel_observer", None)
    runs, checks = {}, {}
    for sink in (False, True):
        r, c = ms_runs(ms, data, sink, kernel_share(setter) if setter else None)
        runs.update({f"{k}/{sink}": v for k, v in r.items()})
        checks.update({f"{k}/{sink}": v for k, v in c.items()})
    return serve(reply, runs, checks, hello={"version": ms.__version__})


def worker_main(data_path: str) -> int:
    reply = reply_channel()
    graph = os.environ["BENCH_MODE"] == "graph"
    ms = mindspore_cpu(THREADS, "GRAPH_MODE" if graph else "PYNATIVE_MODE")
    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for sink in (False, True):
        r, c = ms_runs(ms, data, sink)
        runs.update({f"{k}/{sink}": v for k, v in r.items()})
        checks.update({f"{k}/{sink}": v for k, v in c.items()})
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # MindSpore writes rank_0/ into the working directory
        return serve(reply, runs, checks, THREADS)


# --- PyTorch eager over a DataLoader ---------------------------------------------------------
def torch_worker_main(data_path: str) -> int:
    reply = reply_channel()
    torch = import_torch(THREADS)
    if torch is None:
        return serve(reply, {}, {}, hello=TORCH_MISSING)
    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for case in worker_cases():
        runs[f"{case}/False"], checks[f"{case}/False"] = torch_case(torch, case, data)
    return serve(reply, runs, checks, hello={"version": torch.__version__})


def torch_case(torch, case, data):
    nn, F = torch.nn, torch.nn.functional
    from torch.utils.data import DataLoader, TensorDataset

    def model():
        if case != "lenet":
            net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                nn.Linear(512, 10))
        else:
            net = nn.Sequential(nn.Conv2d(1, 6, 5, bias=False), nn.ReLU(), nn.MaxPool2d(2),
                                nn.Conv2d(6, 16, 5, bias=False), nn.ReLU(), nn.MaxPool2d(2),
                                nn.Flatten(), nn.Linear(400, 120), nn.ReLU(),
                                nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
        ms_names = [k.split("/", 1)[1] for k in data
                    if k.startswith(case + "/") and k not in (f"{case}/x", f"{case}/y")]
        with torch.no_grad():  # both name their parameters in the order of definition
            for p, name in zip(net.parameters(), ms_names, strict=True):
                p.copy_(torch.from_numpy(data[f"{case}/{name}"]))
        return net, torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)

    loader = DataLoader(TensorDataset(torch.from_numpy(data[f"{case}/x"]),
                                      torch.from_numpy(data[f"{case}/y"]).long()),
                        batch_size=BATCH[case], shuffle=False, drop_last=True)
    net, opt = model()

    def train(net, opt, steps):
        done, loss = 0, None
        while done < steps:
            for x, y in loader:
                opt.zero_grad(set_to_none=True)
                loss = F.cross_entropy(net(x), y)
                loss.backward()
                opt.step()
                done += 1
                if done == steps:
                    break
        return loss.item()

    def run():
        t0 = time.perf_counter()
        train(net, opt, EPOCHS * SINK_SIZE)
        return (time.perf_counter() - t0) / (EPOCHS * SINK_SIZE)

    return run, lambda: [train(*model(), CHECK_STEPS)]


# --- the driver ------------------------------------------------------------------------------
def main() -> int:
    p = arg_parser(__doc__, CASES)
    p.add_argument("--microspore-worker", metavar="DATA", help="(internal)")
    p.add_argument("--torch-worker", metavar="DATA", help="(internal)")
    p.add_argument("--rounds", type=int, metavar="N",
                   help="N timed rounds per case (after one warm-up) instead of the plan's")
    args = p.parse_args()
    if args.worker:
        return worker_main(args.worker)
    if args.microspore_worker:
        return microspore_worker_main(args.microspore_worker)
    if args.torch_worker:
        return torch_worker_main(args.torch_worker)
    cases = args.case or list(CASES)
    plan = QUICK_PLAN if args.quick else PLAN
    if args.rounds:
        plan = dict.fromkeys(CASES, (args.rounds, 1))
    load = os.getloadavg()[0]
    notes, workers, rows = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "inputs.npz")
        make_inputs(data_path)
        outside = {}
        try:
            for mode, label in (("pynative", "PyNative"), ("graph", "GRAPH_MODE")):
                env = {**START_ENV, "BENCH_MODE": mode, "BENCH_CASES": ",".join(cases)}
                w = Worker(sys.executable, __file__, data_path, env, flag="--microspore-worker")
                workers.append(w)
                for case in cases:
                    for sink in (False, True):
                        rows.append(w.row(f"{case}/{sink}", f"microspore {label}"))
                outside[label] = w
                ms_w = start_worker(__file__, data_path, env, notes, workers,
                                    f"MindSpore {label}")
                if ms_w is not None:
                    if mode == "pynative":
                        notes.append(ms_w.describe())
                    for case in cases:
                        for sink in (False, True):
                            rows.append(ms_w.row(f"{case}/{sink}", f"MindSpore {label}"))
            t = Worker(sys.executable, __file__, data_path,
                       {**START_ENV, "BENCH_CASES": ",".join(cases)}, flag="--torch-worker")
            workers.append(t)
            if "skipped" in t.hello:
                notes.append(t.hello["skipped"])
            else:
                notes.append(f"PyTorch {t.hello['version']} eager over a DataLoader "
                             f"(num_workers=0), torch.set_num_threads({THREADS}).")
                rows += [t.row(f"{case}/False", "PyTorch eager") for case in cases]
            rows = check_agreement(rows, notes, "microspore PyNative", atol=1e-4)
            for case in cases:
                interleaved_rounds(rows, case, *plan[case])
            shares = {}
            for label, w in outside.items():
                for case in cases:
                    for sink in (False, True):
                        try:
                            shares[(label, case, sink)] = w.run(f"{case}/outside/{sink}")
                        except RuntimeError:
                            shares[(label, case, sink)] = None
        finally:
            for w in workers:
                w.close()
    report(rows, cases, shares, notes, plan, args.quick, load)
    return 0


def interleaved_rounds(rows, case, rounds: int, warmup: int, settle_s: float = 0.05) -> None:
    """``_common.run_rounds`` over both halves of ``case`` at once: each round samples every
    implementation with sink off and on in turn, so the sink / no-sink ratio compares
    samples taken seconds apart (sampling all of one half first put minutes between them,
    and on a shared machine the load changed in between: ratios of 0.6x to 21x)."""
    mine = [r for r in rows if r.case in (f"{case}/False", f"{case}/True")]
    print(f"running {case}: {rounds} rounds x {len(mine)} implementations ...",
          file=sys.stderr, flush=True)
    for i in range(warmup + rounds):
        for r in mine:
            time.sleep(settle_s)
            t = r.run()
            if i >= warmup:
                r.samples.append(t)


def report(rows, cases, shares, notes, plan, quick, load) -> None:
    print(machine())
    print(load_line(load))
    print(rounds_line({f"{c}/{s}": plan[c] for c in cases for s in (False, True)},
                      [f"{c}/{s}" for c in cases for s in (False, True)], quick))
    print()
    print("| case | framework, mode | steps/s sink off | steps/s sink on (100) | sink / "
          "no sink | outside kernels (off / on) |")
    print("|---|---|---:|---:|---:|---:|")
    goals = []
    for case in cases:
        for label in dict.fromkeys(r.label for r in rows if r.case.startswith(case + "/")):
            rate = {}
            for sink in (False, True):
                r = next((r for r in rows if r.case == f"{case}/{sink}" and r.label == label
                          and r.samples), None)
                rate[sink] = 1 / median_iqr(r.samples)[0] if r else None
            mode = "GRAPH_MODE" if "GRAPH" in label else "PyNative"
            share = [(shares.get((mode, case, s)) or [None])[0]
                     if label.startswith("microspore") else None for s in (False, True)]
            ratio = rate[True] / rate[False] if rate[True] and rate[False] else None
            cells = [num(v) if v else "-" for v in (rate[False], rate[True])]
            out = " / ".join(f"{v:.0%}" if v is not None else "n/a" for v in share) \
                if label.startswith("microspore") else "-"
            print(f"| {case} | {label} | {cells[0]} | {cells[1]} | "
                  f"{f'{ratio:.2f}x' if ratio else '-'} | {out} |")
            if case == "mlp16" and label == "microspore GRAPH_MODE" and ratio:
                goals.append(f"GRAPH_MODE sink >= 1.5x non-sink on the batch-16 MLP: "
                             f"{ratio:.2f}x -> {'met' if ratio >= 1.5 else 'NOT met'}")
    cpu_table(shares, cases)
    print()
    print_notes(notes, rows, goals)


def cpu_table(shares, cases) -> None:
    """microspore's CPU time per step (us) by thread, sink off / on, and the most a sink
    that removed every non-kernel cost of the main thread could gain (main / kernels of
    the plain loop)."""
    print()
    print("| case | microspore mode | kernels, CPU us/step (off / on) | main thread (off / on) "
          "| other threads (off / on) | ceiling: main / kernels, sink off |")
    print("|---|---|---:|---:|---:|---:|")
    for case in cases:
        for mode in ("PyNative", "GRAPH_MODE"):
            got = [shares.get((mode, case, s)) for s in (False, True)]
            if not all(got):
                continue
            cols = [" / ".join(f"{g[i]:.0f}" for g in got) for i in (1, 2, 3)]
            print(f"| {case} | {mode} | {cols[0]} | {cols[1]} | {cols[2]} | "
                  f"{got[0][2] / got[0][1]:.2f}x |")


if __name__ == "__main__":
    sys.exit(main())
