"""Networks: training steps per second of an MLP and LeNet5, peak memory of a training run,
and import time -- microspore against PyTorch and MindSpore on the CPU, 2 threads each.

Cases (one training step = forward, backward and the Momentum update, float32):

* ``mlp`` -- Dense 784-512-512-10 with ReLU, batch 64, sparse softmax cross-entropy (mean),
  Momentum(lr 0.01, momentum 0.9);
* ``lenet`` -- the seed's LeNet5 (conv 5x5 x6, pool, conv 5x5 x16, pool, dense 120-84-10) on
  a batch of 32 images 1x32x32, same loss and optimizer.

microspore and MindSpore run the very same code (``nn.SequentialCell``/``nn.Cell``,
``nn.SoftmaxCrossEntropyWithLogits``, ``nn.Momentum``, ``nn.TrainOneStepCell(nn.WithLossCell)``)
in PyNative mode, MindSpore also in GRAPH_MODE (the whole step compiled); PyTorch uses
``nn.Linear``/``nn.Conv2d``, ``F.cross_entropy`` and ``optim.SGD(momentum=0.9)``. All start
from the same weights and batch; before timing, each one's losses over three steps are
compared with microspore's and a framework that differs is dropped. Samples interleave
round by round (A B A B ...) with no pause between them; the table shows medians.

Every framework runs warm in its own process, a worker answering "run once" over a pipe
(``benchmarks/_workers.py``) and stopped (SIGSTOP) while the others run, so that no idle
thread pool spins against the framework being timed: microspore and PyTorch (which ships
its own libgomp) from this interpreter, MindSpore from its own (``MS_PYTHON``, default
``/tmp/msenv/bin/python``). A sample is ``WARM_STEPS`` untimed steps, then ``STEPS`` timed.

``--memory``: peak resident memory (``VmHWM``) of a process that imports the framework
and runs 200 MLP steps, one fresh process per framework. ``--imports``: wall time of
``python -c "import X"`` (median of 7 fresh processes), beside ``python -c pass``.

Usage: ``python benchmarks/bench_nn.py [--quick] [--case mlp|lenet] [--memory] [--imports]``
(with neither ``--memory`` nor ``--imports`` it runs the step cases; ``--all`` runs all three).
``--baseline PATH`` adds a row for another microspore (a copy of the packages' ``src``
folders, compiled kernels included, on ``PYTHONPATH``): before and after a change, measured
in the same rounds; ``--tuned`` one for microspore with the tuning it never applies by itself,
exported in that worker's environment (``ms_ops.tuning.MALLOC`` and ``OPENMP``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import (
    QUICK_NOTE,
    START_ENV,
    THREADS,
    arg_parser,
    check_agreement,
    load_line,
    machine,
    median_iqr,
    print_notes,
    run_rounds,
    timed,
)
from _workers import (
    TORCH_MISSING,
    Worker,
    import_torch,
    mindspore_cpu,
    mindspore_python,
    reply_channel,
    serve,
    start_worker,
)

from ms_ops import tuning

MLP_SIZES = (784, 512, 512, 10)
BATCH = {"mlp": 64, "lenet": 32}
LR, MOMENTUM = 0.01, 0.9
STEPS = {"mlp": 20, "lenet": 20}   # timed training steps per sample
WARM_STEPS = 2                      # untimed steps before them, in the same sample
CHECK_STEPS = 3
MEMORY_STEPS = 200
CASES = ("mlp", "lenet")
# ``--tuned``: what microspore once applied by itself, now the program's explicit choice
TUNED_ENV = {**tuning.MALLOC, **tuning.OPENMP}  # what a user would export


# --- the networks, written once for microspore and MindSpore (same API) ----------------------
def ms_network(ms, case):
    nn = ms.nn
    if case == "mlp":
        layers = []
        for i, (n_in, n_out) in enumerate(zip(MLP_SIZES[:-1], MLP_SIZES[1:])):
            layers.append(nn.Dense(n_in, n_out))
            if i < len(MLP_SIZES) - 2:
                layers.append(nn.ReLU())
        return nn.SequentialCell(layers)

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.reshape = ms.ops.Reshape()

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.reshape(x, (x.shape[0], -1))
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet5()


def ms_step(ms, case, data):
    """``(step, params)``: one training step of ``case`` returning the loss Tensor."""
    net = ms_network(ms, case)
    for name, p in net.parameters_and_names():
        p.set_data(ms.Tensor(data[f"{case}/{name}"]))
    loss_fn = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = ms.nn.Momentum(net.trainable_params(), LR, MOMENTUM)
    train = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, loss_fn), opt)
    train.set_train()
    x, y = ms.Tensor(data[f"{case}/x"]), ms.Tensor(data[f"{case}/y"])
    return (lambda: train(x, y)), net.trainable_params()


def torch_step(torch, case, data, compiled=False):
    """One PyTorch training step of ``case``; ``compiled`` runs the network through
    ``torch.compile`` (forward and, by AOTAutograd, backward; the optimizer stays eager)."""
    nn, F = torch.nn, torch.nn.functional
    if case == "mlp":
        layers = []
        for i, (n_in, n_out) in enumerate(zip(MLP_SIZES[:-1], MLP_SIZES[1:])):
            layers.append(nn.Linear(n_in, n_out))
            if i < len(MLP_SIZES) - 2:
                layers.append(nn.ReLU())
        net = nn.Sequential(*layers)
    else:
        class LeNet5(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 6, 5, bias=False)
                self.conv2 = nn.Conv2d(6, 16, 5, bias=False)
                self.fc1, self.fc2, self.fc3 = (nn.Linear(400, 120), nn.Linear(120, 84),
                                                nn.Linear(84, 10))

            def forward(self, x):
                x = F.max_pool2d(F.relu(self.conv1(x)), 2)
                x = F.max_pool2d(F.relu(self.conv2(x)), 2).flatten(1)
                return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

        net = LeNet5()
    with torch.no_grad():
        for name, p in net.named_parameters():
            p.copy_(torch.from_numpy(data[f"{case}/{name}"]))
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
    x = torch.from_numpy(data[f"{case}/x"])
    y = torch.from_numpy(data[f"{case}/y"]).long()
    model = torch.compile(net) if compiled else net

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


# --- inputs ----------------------------------------------------------------------------------
def make_inputs(path: str) -> None:
    """Weights as PyTorch initialises them, U(+-1/sqrt(fan_in)), named as both name them."""
    import microspore as ms

    rng = np.random.default_rng(0)
    arrays = {}
    for case in CASES:
        for name, p in ms_network(ms, case).parameters_and_names():
            shape = tuple(p.shape)
            bound = 1 / np.sqrt(np.prod(shape[1:]) if len(shape) > 1 else shape[0])
            arrays[f"{case}/{name}"] = rng.uniform(-bound, bound, shape).astype(np.float32)
        x_shape = (BATCH[case], 784) if case == "mlp" else (BATCH[case], 1, 32, 32)
        arrays[f"{case}/x"] = rng.standard_normal(x_shape).astype(np.float32)
        arrays[f"{case}/y"] = rng.integers(0, 10, BATCH[case]).astype(np.int32)
    np.savez(path, **arrays)


# --- the step workers: every framework in its own process ----------------------------------
def step_runs(case, make_step, to_float):
    """``(run, check)`` of ``case``: ``run`` times ``STEPS[case]`` steps after ``WARM_STEPS``
    untimed ones (the worker was stopped while the others ran: its caches are cold and
    its thread pools asleep), ``check`` gives the losses of a fresh step's first steps."""
    step = make_step()

    def run():
        for _ in range(WARM_STEPS):
            step()
        return timed(lambda: to_float([step() for _ in range(STEPS[case])][-1]))

    def check():
        fresh = make_step()
        return [to_float(fresh()) for _ in range(CHECK_STEPS)]

    return run, check


def microspore_worker_main(data_path: str) -> int:
    """microspore in PyNative mode, answering the driver's requests."""
    reply = reply_channel()
    import microspore as ms

    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for case in CASES:
        runs[case], checks[case] = step_runs(case, lambda case=case: ms_step(ms, case, data)[0],
                                             lambda t: float(t.asnumpy()))
    return serve(reply, runs, checks, hello={"version": ms.__version__})


def torch_worker_main(data_path: str) -> int:
    """PyTorch eager, answering the driver's requests."""
    reply = reply_channel()
    torch = import_torch(THREADS)
    if torch is None:
        return serve(reply, {}, {}, hello=TORCH_MISSING)
    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for case in CASES:
        runs[case], checks[case] = step_runs(case, lambda case=case: torch_step(torch, case, data),
                                             lambda t: t.item())
    return serve(reply, runs, checks, hello={"version": torch.__version__})


def worker_main(data_path: str) -> int:
    """The MindSpore side (mode from ``BENCH_MS_MODE``): answer the driver's requests."""
    reply = reply_channel()
    graph = os.environ.get("BENCH_MS_MODE") == "graph"
    ms = mindspore_cpu(THREADS, "GRAPH_MODE" if graph else "PYNATIVE_MODE")
    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for case in CASES:
        runs[case], checks[case] = step_runs(case, lambda case=case: ms_step(ms, case, data)[0],
                                             lambda t: float(t.asnumpy()))
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # MindSpore writes rank_0/ (compile reports) into the working directory
        return serve(reply, runs, checks, THREADS)


def local_rows(data_path, notes, workers, baseline=None, tuned=False):
    """microspore's and PyTorch's rows, each framework answering from its own process;
    with ``baseline`` (a PYTHONPATH of another microspore's source trees) one more row,
    that microspore's, interleaved with the others: a before/after under the same load;
    with ``tuned``, one with the tuning of ``ms_ops.tuning`` exported (see there)."""
    rows = []
    runs = [("--microspore-worker", "microspore", "microspore PyNative", None, START_ENV),
            ("--torch-worker", "PyTorch", "PyTorch eager", f"torch.set_num_threads({THREADS})",
             START_ENV)]
    if tuned:
        runs.insert(1, ("--microspore-worker", "microspore tuned", "microspore PyNative, tuned",
                        ", ".join(f"{k}={v}" for k, v in TUNED_ENV.items()),
                        {**START_ENV, **TUNED_ENV}))
    if baseline:
        runs.insert(1, ("--microspore-worker", "microspore baseline", "microspore baseline",
                        f"PYTHONPATH={baseline}", {**START_ENV, "PYTHONPATH": baseline}))
    for flag, name, label, note, env in runs:
        try:
            worker = Worker(sys.executable, __file__, data_path, env, flag=flag)
        except (OSError, RuntimeError) as e:
            notes.append(f"{name} skipped: {e}")
            continue
        workers.append(worker)
        if "skipped" in worker.hello:
            notes.append(worker.hello["skipped"])
            continue
        notes.append(f"{name} {worker.hello['version']} (own process)"
                     + (f", {note}." if note else "."))
        rows += [worker.row(case, label) for case in CASES]
    return rows


def mindspore_rows(data_path, notes, workers):
    rows = []
    for mode, label in (("pynative", "MindSpore PyNative"), ("graph", "MindSpore GRAPH_MODE")):
        worker = start_worker(__file__, data_path, {**START_ENV, "BENCH_MS_MODE": mode}, notes,
                              workers, label)
        if worker is None:
            continue
        if mode == "pynative":
            notes.append(worker.describe())
        rows += [worker.row(case, label) for case in CASES]
    return rows


# --- memory and import time ------------------------------------------------------------------
def memory_main(framework: str, data_path: str) -> int:
    """Run 200 MLP steps in this fresh process and print its peak RSS in MiB."""
    data = dict(np.load(data_path))
    if framework == "torch":
        import torch

        torch.set_num_threads(THREADS)
        step = torch_step(torch, "mlp", data)
        for _ in range(MEMORY_STEPS):
            loss = step()
        loss.item()
    else:
        import importlib

        if framework == "mindspore":
            ms = mindspore_cpu(THREADS, mode=None)
        else:
            ms = importlib.import_module(framework)
        step, _ = ms_step(ms, "mlp", data)
        for _ in range(MEMORY_STEPS):
            loss = step()
        loss.asnumpy()
    print(peak_rss_mib())
    return 0


def peak_rss_mib() -> float:
    """This process's peak resident memory. ``VmHWM`` belongs to the address space, so it
    starts afresh at exec; ``ru_maxrss`` would keep the forking parent's peak."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def frameworks(notes):
    """``[(label, python, module)]`` of the frameworks that are installed."""
    out = [("microspore", sys.executable, "microspore")]
    try:
        import importlib.util

        if importlib.util.find_spec("torch") is not None:
            out.append(("PyTorch", sys.executable, "torch"))
    except ImportError:
        pass
    python = mindspore_python()
    if python:
        out.append(("MindSpore", python, "mindspore"))
    else:
        notes.append("MindSpore skipped: no MS_PYTHON.")
    return out


def memory_table(data_path, notes) -> str:
    lines = [f"| framework | peak RSS, {MEMORY_STEPS} MLP steps |", "|---|---:|"]
    for label, python, module in frameworks(notes):
        out = subprocess.run([python, os.path.abspath(__file__), "--memory-worker", module,
                              data_path], capture_output=True, text=True, env=START_ENV,
                             timeout=600)
        if out.returncode != 0:
            notes.append(f"{label} memory run failed: {out.stderr[-500:]}")
            continue
        lines.append(f"| {label} | {float(out.stdout.split()[-1]):.0f} MiB |")
    return "\n".join(lines)


def import_table(notes, repeats=7) -> str:
    lines = ["| command | median wall time | min |", "|---|---:|---:|"]
    cases = [("python -c pass", sys.executable, "pass")]
    cases += [(f'python -c "import {m}"', py, f"import {m}") for _, py, m in frameworks(notes)]
    for label, python, stmt in cases:
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run([python, "-c", stmt], check=True, env=START_ENV,
                           capture_output=True)
            times.append(time.perf_counter() - t0)
        where = "" if python == sys.executable else f" ({python})"
        lines.append(f"| `{label}`{where} | {statistics.median(times):.2f} s | "
                     f"{min(times):.2f} s |")
    return "\n".join(lines)


# --- driver ----------------------------------------------------------------------------------
def step_table(rows) -> str:
    lines = ["| case | implementation | median | spread (IQR) | rate / PyTorch's |",
             "|---|---|---:|---:|---:|"]
    for case in CASES:
        case_rows = [r for r in rows if r.case == case and r.samples]
        torch_med = next((statistics.median(r.samples) for r in case_rows
                          if r.label == "PyTorch eager"), None)
        for r in case_rows:
            med, q1, q3 = median_iqr(r.samples)
            n = STEPS[case]
            ratio = f"{torch_med / med:.2f}" if torch_med else "n/a"
            lines.append(f"| {case} | {r.label} | {n / med:.1f} steps/s | "
                         f"{n / q3:.1f}-{n / q1:.1f} | {ratio} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = arg_parser(__doc__, CASES, "only this step case")
    p.add_argument("--memory", action="store_true", help="peak memory of 200 MLP steps")
    p.add_argument("--imports", action="store_true", help="import times")
    p.add_argument("--all", action="store_true", help="steps, memory and imports")
    p.add_argument("--baseline", metavar="PYTHONPATH",
                   help="also time the microspore found on this path (before/after)")
    p.add_argument("--tuned", action="store_true",
                   help="also time microspore with ms_ops.tuning's variables exported")
    p.add_argument("--memory-worker", nargs=2, metavar=("MODULE", "DATA"), help=argparse.SUPPRESS)
    p.add_argument("--microspore-worker", metavar="DATA", help=argparse.SUPPRESS)
    p.add_argument("--torch-worker", metavar="DATA", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    if args.microspore_worker:
        return microspore_worker_main(args.microspore_worker)
    if args.torch_worker:
        return torch_worker_main(args.torch_worker)
    if args.memory_worker:
        return memory_main(*args.memory_worker)
    do_steps = args.all or not (args.memory or args.imports)
    cases = args.case or list(CASES)
    rounds, warmup = (3, 1) if args.quick else (21, 2)
    load = os.getloadavg()
    notes: list[str] = []
    workers: list = []
    print(f"Machine: {machine()}.\n")
    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "inputs.npz")
        make_inputs(data_path)
        if do_steps:
            try:
                rows = (local_rows(data_path, notes, workers, args.baseline, args.tuned)
                        + mindspore_rows(data_path, notes, workers))
                rows = check_agreement([r for r in rows if r.case in cases], notes,
                                       "microspore", atol=1e-4, describe=lambda got, want:
                                       f"losses {got} differ from microspore's {want}")
                for case in cases:
                    # No pause between samples: idle workers are stopped instead (see
                    # _workers.Worker); on this VM an idle pause makes the next calls slower.
                    run_rounds(rows, case, rounds, warmup, settle_s=0.0)
            finally:
                for w in workers:
                    w.close()
            print(f"Training steps; one sample = {STEPS['mlp']} steps after {WARM_STEPS} "
                  f"untimed ones; medians over {rounds} rounds after {warmup} warm-up rounds, "
                  "implementations interleaved, each in its own process."
                  + (QUICK_NOTE if args.quick else "")
                  + "\n")
            print(step_table(rows) + "\n")
        if args.memory or args.all:
            print(memory_table(data_path, notes) + "\n")
        if args.imports or args.all:
            print(import_table(notes) + "\n")
    print(f"- {load_line(load[0])}.")
    print_notes(notes, [])
    return 0


if __name__ == "__main__":
    sys.exit(main())
