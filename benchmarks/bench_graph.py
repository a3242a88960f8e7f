"""Graph mode: training steps per second of an MLP and LeNet5, and the 1,000-small-op chain
under jit -- microspore GRAPH_MODE against microspore PyNative, PyTorch eager and
``torch.compile``, MindSpore GRAPH_MODE and JAX ``jit``, on the CPU, 2 threads each, in one run.

Cases:

* ``mlp``, ``lenet`` -- ``bench_nn``'s training steps (the same networks, weights, batch,
  sparse softmax cross-entropy and Momentum(0.01, 0.9)). microspore runs the very same
  ``TrainOneStepCell`` in PyNative mode and, with ``set_context(mode=GRAPH_MODE)``, compiled
  whole by ms-graph; MindSpore runs it in GRAPH_MODE; PyTorch eagerly and with
  ``torch.compile(net)``; JAX as the same network in ``jax.numpy``/``lax`` with
  ``value_and_grad`` and the Momentum update inside one ``jax.jit`` (buffers donated).
* ``chain`` -- ``bench_ops``' eager chain (``x = x + b; x = x * b`` 500 times on float32[16])
  inside one jitted function: ``ms.jit``, ``torch.compile``, ``mindspore.jit``, ``jax.jit``;
  microseconds per op, the call included.

Before timing, each implementation's losses over three steps (the chain's result) are
compared with microspore PyNative's, and one that differs or fails is dropped with a note.
Every framework runs warm in its own process, answering "run once" over a pipe and stopped
(SIGSTOP) while idle (``_workers.py``); a sample starts with ``bench_nn.WARM_STEPS`` untimed
steps (calls). microspore and PyTorch run in this interpreter, MindSpore in its own
(``MS_PYTHON``, default ``/tmp/msenv/bin/python``), JAX in its own (``JAX_PYTHON``, default
``/tmp/jaxenv/bin/python``). A framework that is not installed is skipped with a note.
Samples interleave round by round with no pause between them; the table shows medians.

Usage: ``python benchmarks/bench_graph.py [--quick] [--case mlp|lenet|chain]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import (
    START_ENV,
    THREADS,
    Row,
    arg_parser,
    check_agreement,
    digest,
    load_line,
    machine,
    median_iqr,
    num,
    print_notes,
    rounds_line,
    run_rounds,
    timed,
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
from bench_nn import (
    BATCH,
    LR,
    MLP_SIZES,
    MOMENTUM,
    STEPS,
    WARM_STEPS,
    ms_step,
    step_runs,
    torch_step,
)
from bench_nn import make_inputs as make_net_inputs
from bench_ops import EAGER_OPS, chain

NETS = ("mlp", "lenet")
CASES = NETS + ("chain",)
CHAIN_CALLS = 100  # jitted chain calls per sample: one call is ~10 us, too short to time
# Matrix-product flops of one MLP training step: forward 2*B*sum(in*out), backward twice that.
MLP_STEP_FLOP = 3 * 2 * BATCH["mlp"] * sum(a * b for a, b in zip(MLP_SIZES, MLP_SIZES[1:]))
GRAPH = "microspore GRAPH_MODE"
MINE = {"mlp": GRAPH, "lenet": GRAPH, "chain": "microspore ms.jit"}  # what the goals are about


def make_inputs(path: str) -> None:
    """``bench_nn``'s weights and batches, plus the chain's x and b (as ``bench_ops``'s)."""
    make_net_inputs(path)
    arrays = dict(np.load(path))
    rng = np.random.default_rng(0)
    arrays["chain/x"] = rng.standard_normal(16).astype(np.float32)
    arrays["chain/b"] = np.full(16, 0.5, np.float32)  # keeps x bounded
    np.savez(path, **arrays)


def chain_runs(jitted, x, b, to_numpy):
    """``(run, check)`` of the chain, warmed up as ``bench_nn.step_runs`` warms a step."""
    def run():
        for _ in range(WARM_STEPS):
            jitted(x, b)
        return timed(lambda: to_numpy([jitted(x, b) for _ in range(CHAIN_CALLS)][-1]))

    return run, lambda: digest(to_numpy(jitted(x, b)))


# --- microspore: a worker process of this interpreter ---------------------------------------
_MICROSPORE_ROWS = {"mlp": "microspore PyNative", "lenet": "microspore PyNative",
                    "mlp/graph": GRAPH, "lenet/graph": GRAPH, "chain/graph": MINE["chain"]}


def microspore_worker_main(data_path: str) -> int:
    """microspore: each training step in PyNative mode and in GRAPH_MODE, the chain under
    ms.jit, answering the driver's requests."""
    reply = reply_channel()
    import microspore as ms

    def in_mode(mode, fn):
        def call():
            previous = ms.get_context("mode")
            ms.set_context(mode=mode)
            try:
                return fn()
            finally:
                ms.set_context(mode=previous)
        return call

    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for case in NETS:
        for key, mode in ((case, ms.PYNATIVE_MODE), (f"{case}/graph", ms.GRAPH_MODE)):
            run, check = step_runs(case, lambda case=case: ms_step(ms, case, data)[0],
                                   lambda t: float(t.asnumpy()))
            runs[key], checks[key] = in_mode(mode, run), in_mode(mode, check)
    x, b = ms.Tensor(data["chain/x"]), ms.Tensor(data["chain/b"])
    runs["chain/graph"], checks["chain/graph"] = chain_runs(ms.jit(chain), x, b,
                                                            lambda t: t.asnumpy())
    return serve(reply, runs, checks, hello={"version": ms.__version__})


# --- PyTorch: a worker process of this interpreter -------------------------------------------
_TORCH_ROWS = {"mlp": "PyTorch eager", "lenet": "PyTorch eager",
               "mlp/compiled": "PyTorch torch.compile", "lenet/compiled": "PyTorch torch.compile",
               "chain/compiled": "PyTorch torch.compile"}


def torch_worker_main(data_path: str) -> int:
    """The PyTorch side: set up every case, then answer the driver's requests."""
    reply = reply_channel()
    torch = import_torch(THREADS)
    if torch is None:
        return serve(reply, {}, {}, hello=TORCH_MISSING)
    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for case in NETS:
        for key, compiled in ((case, False), (f"{case}/compiled", True)):
            runs[key], checks[key] = step_runs(
                case, lambda case=case, compiled=compiled: torch_step(torch, case, data, compiled),
                lambda t: t.item())
    x, b = torch.from_numpy(data["chain/x"]), torch.from_numpy(data["chain/b"])
    runs["chain/compiled"], checks["chain/compiled"] = chain_runs(
        torch.compile(chain), x, b, lambda t: t.numpy())
    return serve(reply, runs, checks, hello={"version": torch.__version__})


# --- JAX: a worker process in JAX's interpreter ----------------------------------------------
def jax_python() -> str | None:
    """The interpreter that has JAX: ``JAX_PYTHON``, else ``/tmp/jaxenv/bin/python``."""
    path = os.environ.get("JAX_PYTHON", "/tmp/jaxenv/bin/python")
    return path if os.path.exists(path) else None


def jax_forward(jnp, lax, case, p, x):
    """``bench_nn``'s networks in ``jax.numpy``: weights (out, in) and OIHW, NCHW data."""
    def relu(v):
        return jnp.maximum(v, 0)

    def dense(v, name):
        return v @ p[f"{name}.weight"].T + p[f"{name}.bias"]

    if case == "mlp":
        layers = len(MLP_SIZES) - 1
        for i in range(layers):  # SequentialCell names: 0, 2, 4 (ReLUs between)
            x = dense(x, str(2 * i))
            x = relu(x) if i < layers - 1 else x
        return x

    def conv_pool(v, name):
        v = lax.conv_general_dilated(v, p[f"{name}.weight"], (1, 1), "VALID",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return lax.reduce_window(relu(v), -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                                 "VALID")

    x = conv_pool(conv_pool(x, "conv1"), "conv2").reshape(x.shape[0], -1)
    return dense(relu(dense(relu(dense(x, "fc1")), "fc2")), "fc3")


def jax_step(jax, case, data):
    """One jitted training step; the parameters and Momentum buffers live in the closure."""
    jnp, lax = jax.numpy, jax.lax
    prefix = f"{case}/"
    params = {k[len(prefix):]: jnp.asarray(v) for k, v in data.items()
              if k.startswith(prefix) and k not in (prefix + "x", prefix + "y")}
    x, y = jnp.asarray(data[prefix + "x"]), jnp.asarray(data[prefix + "y"])

    def loss_fn(p):
        logits = jax_forward(jnp, lax, case, p, x)
        picked = jnp.take_along_axis(logits, y[:, None], axis=1)[:, 0]
        return jnp.mean(jax.nn.logsumexp(logits, axis=1) - picked)

    def update(p, accum):
        loss, grads = jax.value_and_grad(loss_fn)(p)
        accum = jax.tree_util.tree_map(lambda a, g: a * MOMENTUM + g, accum, grads)
        return jax.tree_util.tree_map(lambda w, a: w - LR * a, p, accum), accum, loss

    update = jax.jit(update, donate_argnums=(0, 1))  # in place, as the others update
    state = [params, jax.tree_util.tree_map(jnp.zeros_like, params)]

    def step():
        state[0], state[1], loss = update(*state)
        return loss

    return step


def jax_worker_main(data_path: str) -> int:
    """The JAX side. Its CPU client sizes its thread pool to the cores this process may
    run on, so the process is pinned to ``THREADS`` of them before JAX loads."""
    reply = reply_channel()
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:THREADS])
    try:
        import jax
    except ImportError:
        return serve(reply, {}, {}, hello={"skipped": "JAX skipped: not installed in "
                                                      f"{sys.executable}."})
    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for case in NETS:
        runs[case], checks[case] = step_runs(case, lambda case=case: jax_step(jax, case, data),
                                             lambda t: float(t.block_until_ready()))
    x, b = jax.numpy.asarray(data["chain/x"]), jax.numpy.asarray(data["chain/b"])
    runs["chain"], checks["chain"] = chain_runs(jax.jit(chain), x, b, np.asarray)
    return serve(reply, runs, checks, hello={"version": jax.__version__})


# --- MindSpore: a worker process in MindSpore's interpreter ----------------------------------
def worker_main(data_path: str) -> int:
    """The MindSpore side, in GRAPH_MODE: the training steps and the chain under ms.jit."""
    reply = reply_channel()
    ms = mindspore_cpu(THREADS, "GRAPH_MODE")
    # The chain unrolls into 1,000 nested calls, past MindSpore's default depth of 1,000.
    ms.set_recursion_limit(10_000)
    data = dict(np.load(data_path))
    runs, checks = {}, {}
    for case in NETS:
        runs[case], checks[case] = step_runs(case, lambda case=case: ms_step(ms, case, data)[0],
                                             lambda t: float(t.asnumpy()))
    x, b = ms.Tensor(data["chain/x"]), ms.Tensor(data["chain/b"])
    runs["chain"], checks["chain"] = chain_runs(ms.jit(chain), x, b, lambda t: t.asnumpy())
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # MindSpore writes rank_0/ (compile reports) into the working directory
        return serve(reply, runs, checks, THREADS)


# --- driver ----------------------------------------------------------------------------------
def framework_rows(python, flag, data_path, labels, name, notes, workers):
    """Rows ``{key: label}`` answered by ``python this-script flag DATA``; none (and a
    note) where that interpreter is missing or its framework is not installed."""
    if python is None:
        notes.append(f"{name} skipped: no interpreter (set {name.upper()}_PYTHON).")
        return []
    try:
        worker = Worker(python, __file__, data_path, START_ENV, flag=flag)
    except (OSError, RuntimeError) as e:
        notes.append(f"{name} skipped: {e}")
        return []
    workers.append(worker)
    if "skipped" in worker.hello:
        notes.append(worker.hello["skipped"])
        return []
    notes.append(f"{name} {worker.hello['version']} (own process: {python}).")
    return [Row(key.split("/")[0], label, lambda k=key: worker.run(k),
                lambda k=key: worker.check(k)) for key, label in labels.items()]


def mindspore_rows(data_path, notes, workers):
    worker = start_worker(__file__, data_path, START_ENV, notes, workers, "MindSpore")
    if worker is None:
        return []
    notes.append(worker.describe())
    return [worker.row(case, "MindSpore jit" if case == "chain" else "MindSpore GRAPH_MODE")
            for case in CASES]


def rate(case, seconds: float) -> float:
    """Steps per second (training cases) or microseconds per op (the chain)."""
    if case == "chain":
        return seconds / (CHAIN_CALLS * EAGER_OPS) * 1e6
    return STEPS[case] / seconds


def table(rows) -> str:
    lines = ["| case | implementation | median | spread (IQR) | GFLOP/s | speed / "
             "microspore GRAPH_MODE's |", "|---|---|---:|---:|---:|---:|"]
    for case in CASES:
        case_rows = [r for r in rows if r.case == case and r.samples]
        graph = next((statistics.median(r.samples) for r in case_rows
                      if r.label == MINE[case]), None)
        unit = "us/op" if case == "chain" else "steps/s"
        for r in case_rows:
            med, q1, q3 = median_iqr(r.samples)
            lo, hi = sorted((rate(case, q1), rate(case, q3)))
            flops = f"{MLP_STEP_FLOP * rate(case, med) / 1e9:.0f}" if case == "mlp" else ""
            speed = f"{graph / med:.2f}" if graph else "n/a"
            lines.append(f"| {case} | {r.label} | {num(rate(case, med))} {unit} | "
                         f"{num(lo)}-{num(hi)} | {flops} | {speed} |")
    return "\n".join(lines)


def goals(rows) -> list[str]:
    """Graph mode against the best other implementation of each case (issue 6)."""
    out = []
    for case in CASES:
        med = {r.label: statistics.median(r.samples) for r in rows
               if r.case == case and r.samples}
        mine = med.pop(MINE[case], None)
        others = {k: v for k, v in med.items() if not k.startswith("microspore")}
        if mine is None or not others:
            continue
        best = min(others, key=others.get)
        unit = "us/op" if case == "chain" else "steps/s"
        verdict = "met" if mine <= others[best] else "not met"
        extra = ""
        if case == "chain":
            under = rate(case, mine) < 0.05
            extra = f"; under 0.05 us/op: {'met' if under else 'not met'}"
        out.append(f"{case}: microspore {num(rate(case, mine))} {unit} vs best other "
                   f"({best}) {num(rate(case, others[best]))} {unit} -> "
                   f"{others[best] / mine:.2f}x its speed (at or ahead of it: {verdict}{extra})")
    return out


def main(argv=None) -> int:
    p = arg_parser(__doc__, CASES, "run only this case (repeatable); default all three")
    p.add_argument("--microspore-worker", metavar="DATA", help=argparse.SUPPRESS)
    p.add_argument("--torch-worker", metavar="DATA", help=argparse.SUPPRESS)
    p.add_argument("--jax-worker", metavar="DATA", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    if args.microspore_worker:
        return microspore_worker_main(args.microspore_worker)
    if args.torch_worker:
        return torch_worker_main(args.torch_worker)
    if args.jax_worker:
        return jax_worker_main(args.jax_worker)
    cases = args.case or list(CASES)
    plan = ({"mlp": (3, 1), "lenet": (3, 1), "chain": (5, 1)} if args.quick else
            {"mlp": (15, 2), "lenet": (15, 2), "chain": (31, 3)})

    load = os.getloadavg()
    notes: list[str] = []
    workers: list = []
    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "inputs.npz")
        make_inputs(data_path)
        try:
            rows = (framework_rows(sys.executable, "--microspore-worker", data_path,
                                   _MICROSPORE_ROWS, "microspore", notes, workers)
                    + framework_rows(sys.executable, "--torch-worker", data_path, _TORCH_ROWS,
                                  "PyTorch", notes, workers)
                    + mindspore_rows(data_path, notes, workers)
                    + framework_rows(jax_python(), "--jax-worker", data_path,
                                  dict.fromkeys(CASES, "JAX jit"), "JAX", notes, workers))
            rows = check_agreement([r for r in rows if r.case in cases], notes, "microspore",
                                   atol=1e-4)
            for case in cases:
                run_rounds(rows, case, *plan[case], settle_s=0.0)
        finally:
            for w in workers:
                w.close()

    print(f"Machine: {machine()}.\n")
    print(f"mlp: Dense {'-'.join(map(str, MLP_SIZES))}, batch {BATCH['mlp']}; lenet: LeNet5, "
          f"batch {BATCH['lenet']}; one training sample = {STEPS['mlp']} steps (forward, "
          f"backward, Momentum). chain: {EAGER_OPS} ops (x = x + b; x = x * b) on float32[16] "
          f"in one jitted function, one sample = {CHAIN_CALLS} calls. "
          + rounds_line(plan, cases, args.quick) + "\n")
    print(table(rows))
    print()
    print(f"- GFLOP/s: the MLP's matrix products, {MLP_STEP_FLOP / 1e6:.1f} MFLOP a step. "
          "Last column: this implementation's speed over microspore GRAPH_MODE's (ms.jit's "
          "for the chain); above 1 means faster than microspore.")
    print(f"- {load_line(load[0])} (a busy machine widens the spreads).")
    print_notes(notes, rows, goals(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
