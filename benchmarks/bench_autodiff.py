"""A full training step, and eager overhead under a real tape: microspore against PyTorch,
MindSpore and numpy on the CPU, in one run, with 2 threads each.

Two cases:

* ``step`` -- one SGD training step of an MLP 784-512-512-10 (ReLU, batch 64, float32,
  softmax cross-entropy with sparse labels, mean, learning rate 0.01): forward, backward
  and the in-place update, in steps per second. A sample is ``STEPS`` steps.
  microspore: Parameters, ``ms_ops`` functional operators (``dense``, MindSpore 2.x's
  ``ops.dense``: ``x @ w.T + b`` as PyTorch's ``nn.Linear`` does it, ``relu``,
  ``SparseSoftmaxCrossEntropyWithLogits``),
  ``ms_autodiff.value_and_grad(loss_fn, grad_position=None, weights=params)`` and
  ``ApplyGradientDescent`` per parameter (the fused kernel ms-nn's optimizer will use).
  PyTorch: ``nn.Linear``/``nn.ReLU``, ``F.cross_entropy``, ``optim.SGD``. MindSpore
  (PyNative): ``nn.Dense``, ``nn.SoftmaxCrossEntropyWithLogits(sparse=True)``,
  ``ms.value_and_grad`` and ``nn.SGD``. numpy: the same step with a hand-written backward.
* ``tape`` -- the eager chain of ``bench_ops`` (1,000 adds/muls on float32[16]) inside
  ``ms_autodiff.grad`` with respect to ``b``, so every op is recorded on a real tape: the
  forward alone (timed inside the differentiated function) and forward + backward, in
  microseconds per forward op; against PyTorch with ``b.requires_grad_(True)`` (forward,
  and forward + ``autograd.grad``), MindSpore's ``ms.grad`` and numpy's forward plus a
  hand-written backward. The recording-off chains are there for reference.

All implementations start from the same weights and batch; before timing, each one's
result (three training steps from those weights; the gradient of the chain) is compared
with numpy's and dropped if it differs. Samples interleave (round 1: A B C ..., round 2:
A B C ...) with no pause between them; the table shows medians and ratios to microspore's.
Every framework runs warm in its own process, a worker answering "run once" over a pipe
(``benchmarks/_workers.py``) and stopped (SIGSTOP) while the others run, so no idle thread
pool spins against the one being timed: microspore, numpy and PyTorch from this
interpreter, MindSpore from its own (``MS_PYTHON``, default ``/tmp/msenv/bin/python``). A
step sample is ``WARM_STEPS`` untimed steps, then ``STEPS`` timed.

Usage: ``python benchmarks/bench_autodiff.py [--quick] [--case step|tape] [--profile]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

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
from _workers import Worker, mindspore_cpu, reply_channel, serve, worker_rows
from bench_ops import EAGER_OPS, chain

SIZES = (784, 512, 512, 10)
BATCH = 64
LR = 0.01
STEPS = 20        # timed training steps per sample
WARM_STEPS = 2    # untimed steps before them, in the same sample
CHECK_STEPS = 3   # steps from the initial weights whose result is compared


# --- inputs, shared by every framework ----------------------------------------------------
def make_inputs(path: str) -> None:
    """Weights as ``nn.Linear`` initialises them: (out, in) matrices, U(+-1/sqrt(in))."""
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((BATCH, SIZES[0])).astype(np.float32),
              "labels": rng.integers(0, SIZES[-1], BATCH).astype(np.int32),
              "eager_x": rng.standard_normal(16).astype(np.float32),
              "eager_b": np.full(16, 0.5, np.float32)}
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        bound = 1 / np.sqrt(n_in)
        arrays[f"w{i}"] = rng.uniform(-bound, bound, (n_out, n_in)).astype(np.float32)
        arrays[f"b{i}"] = rng.uniform(-bound, bound, n_out).astype(np.float32)
    np.savez(path, **arrays)


def initial_params(data) -> list:
    """``[w0, b0, w1, b1, w2, b2]`` as fresh float32 arrays."""
    return [data[f"{k}{i}"].copy() for i in range(len(SIZES) - 1) for k in "wb"]


def run_steps(step, n: int):
    loss = None
    for _ in range(n):
        loss = step()
    return loss


def step_sample(step, sync=lambda loss: loss) -> float:
    """Seconds of ``STEPS`` steps after ``WARM_STEPS`` untimed ones: the worker was stopped
    while the others ran, so its caches are cold and its thread pools asleep."""
    run_steps(step, WARM_STEPS)
    return timed(lambda: sync(run_steps(step, STEPS)))


# --- numpy ----------------------------------------------------------------------------------
def numpy_step_fn(params, x, labels):
    """Forward, hand-written backward and SGD update of the MLP, in place on ``params``."""
    rows = np.arange(BATCH)

    def step():
        w0, b0, w1, b1, w2, b2 = params
        h0 = x @ w0.T + b0
        a0 = np.maximum(h0, 0)
        h1 = a0 @ w1.T + b1
        a1 = np.maximum(h1, 0)
        logits = a1 @ w2.T + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(s[:, 0]) - shifted[rows, labels]))
        d = e / s
        d[rows, labels] -= 1
        d /= BATCH
        grads = [None] * 6
        grads[4], grads[5] = d.T @ a1, d.sum(axis=0)
        d = (d @ w2) * (h1 > 0)
        grads[2], grads[3] = d.T @ a0, d.sum(axis=0)
        d = (d @ w1) * (h0 > 0)
        grads[0], grads[1] = d.T @ x, d.sum(axis=0)
        for p, g in zip(params, grads):
            p -= LR * g
        return loss

    return step


def chain_grad_numpy(x, b):
    """d sum(chain(x, b)) / d b by hand: each pair is x' = (x + b) * b."""
    xs = []
    for _ in range(EAGER_OPS // 2):
        xs.append(x)
        x = (x + b) * b
    gx, gb = np.ones_like(x), np.zeros_like(b)
    for xk in reversed(xs):
        gb += gx * (xk + 2 * b)
        gx = gx * b
    return x, gb


def numpy_rows(data, notes):
    x, labels = data["x"], data["labels"]
    params = initial_params(data)
    step = numpy_step_fn(params, x, labels)
    ex, eb = data["eager_x"], data["eager_b"]

    def check():
        fresh = initial_params(data)
        losses = [numpy_step_fn(fresh, x, labels)() for _ in range(CHECK_STEPS)]
        return digest(np.array(losses), fresh[4])

    return [
        Row("step", "numpy, hand-written backward", lambda: step_sample(step), check),
        Row("tape", "numpy, forward + hand-written backward",
            lambda: timed(lambda: chain_grad_numpy(ex, eb)),
            lambda: digest(chain_grad_numpy(ex, eb)[1])),
        Row("tape", "numpy, forward only (bare ndarray)", lambda: timed(lambda: chain(ex, eb)),
            lambda: digest(chain_grad_numpy(ex, eb)[1])),
    ]


# --- microspore -----------------------------------------------------------------------------
def microspore_step_fn(ops, ad, params, x, labels):
    loss_op = ops.SparseSoftmaxCrossEntropyWithLogits()
    update = ops.ApplyGradientDescent()

    def loss_fn(x, labels):
        w0, b0, w1, b1, w2, b2 = params
        h = ops.relu(ops.dense(x, w0, b0))
        h = ops.relu(ops.dense(h, w1, b1))
        return loss_op(ops.dense(h, w2, b2), labels)

    value_and_grad = ad.value_and_grad(loss_fn, grad_position=None, weights=params)

    def step():
        loss, grads = value_and_grad(x, labels)
        for p, g in zip(params, grads):
            update(p, LR, g)
        return loss

    return step


def microspore_rows(data, notes):
    try:
        import ms_autodiff as ad
        import ms_ops as ops
        from ms_tensor import Parameter, Tensor
    except ImportError as e:
        notes.append(f"microspore skipped: {e}")
        return []

    def make_params():
        names = [f"{k}{i}" for i in range(len(SIZES) - 1) for k in "wb"]
        return [Parameter(Tensor(a), name=n) for a, n in zip(initial_params(data), names)]

    x, labels = Tensor(data["x"]), Tensor(data["labels"])
    step = microspore_step_fn(ops, ad, make_params(), x, labels)

    def check():
        fresh = make_params()
        fresh_step = microspore_step_fn(ops, ad, fresh, x, labels)
        losses = [float(fresh_step().asnumpy()) for _ in range(CHECK_STEPS)]
        return digest(np.array(losses), fresh[4].asnumpy())

    ex, eb = Tensor(data["eager_x"]), Tensor(data["eager_b"])
    forward_s = [0.0]

    def recorded_chain(x, b):
        t0 = time.perf_counter()
        y = chain(x, b)
        forward_s[0] = time.perf_counter() - t0
        return y

    chain_grad = ad.grad(recorded_chain, grad_position=1)

    def forward_only():
        chain_grad(ex, eb)
        return forward_s[0]

    def grad_check():
        return digest(chain_grad(ex, eb).asnumpy())

    return [
        Row("step", "microspore (value_and_grad + ApplyGradientDescent)",
            lambda: step_sample(step, lambda loss: loss.asnumpy()), check),
        Row("tape", "microspore grad: forward + backward",
            lambda: timed(lambda: chain_grad(ex, eb).asnumpy()), grad_check),
        Row("tape", "microspore grad: forward only (recording on)", forward_only, grad_check,
            note="microspore 'forward only (recording on)' is timed inside the function that "
                 "`ms_autodiff.grad` differentiates: the chain with the tape recording every "
                 "op, without the backward pass."),
        Row("tape", "microspore, recording off", lambda: timed(lambda: chain(ex, eb)),
            grad_check),
    ]


# --- PyTorch --------------------------------------------------------------------------------
def torch_rows(data, notes):
    try:
        import torch
    except ImportError:
        notes.append("PyTorch skipped: not installed in this interpreter "
                     "(`pip install torch==2.13.0`).")
        return []
    torch.set_num_threads(THREADS)
    notes.append(f"PyTorch {torch.__version__}, torch.set_num_threads({THREADS}).")
    nn, F = torch.nn, torch.nn.functional

    def make_model():
        layers = []
        for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
            lin = nn.Linear(n_in, n_out)
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(data[f"w{i}"]))
                lin.bias.copy_(torch.from_numpy(data[f"b{i}"]))
            layers += [lin, nn.ReLU()] if i < len(SIZES) - 2 else [lin]
        model = nn.Sequential(*layers)
        return model, torch.optim.SGD(model.parameters(), lr=LR)

    x = torch.from_numpy(data["x"].copy())
    labels = torch.from_numpy(data["labels"].astype(np.int64))

    def step_fn(model, opt):
        def step():
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), labels)
            loss.backward()
            opt.step()
            return loss
        return step

    step = step_fn(*make_model())

    def check():
        model, opt = make_model()
        fresh_step = step_fn(model, opt)
        losses = [fresh_step().item() for _ in range(CHECK_STEPS)]
        return digest(np.array(losses), model[4].weight.detach().numpy())

    ex = torch.from_numpy(data["eager_x"].copy())
    eb = torch.from_numpy(data["eager_b"].copy())
    bg = eb.clone().requires_grad_(True)

    def fwd_bwd():
        y = chain(ex, bg)
        return torch.autograd.grad(y, bg, torch.ones_like(y))[0]

    def grad_check():
        return digest(fwd_bwd().numpy())

    return [
        Row("step", "PyTorch eager (nn.Linear, optim.SGD)",
            lambda: step_sample(step, lambda loss: loss.item()), check),
        Row("tape", "PyTorch, forward + autograd.grad", lambda: timed(fwd_bwd), grad_check),
        Row("tape", "PyTorch, forward only (requires_grad=True)",
            lambda: timed(lambda: chain(ex, bg)), grad_check),
        Row("tape", "PyTorch, requires_grad=False", lambda: timed(lambda: chain(ex, eb)),
            grad_check),
    ]


# --- MindSpore (worker) ---------------------------------------------------------------------
def mindspore_rows(data_path, notes, workers):
    return worker_rows(__file__, data_path, START_ENV, notes, workers,
                       {"step": "MindSpore PyNative (nn.Dense, value_and_grad, nn.SGD)",
                        "tape": "MindSpore PyNative grad: forward + backward"})


def worker_main(data_path: str) -> int:
    """The MindSpore side: set up both cases, then answer the driver's requests."""
    reply = reply_channel()
    ms = mindspore_cpu(THREADS)
    from mindspore import Tensor, nn

    data = np.load(data_path)

    def make_model():
        layers = []
        for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
            layers.append(nn.Dense(n_in, n_out, weight_init=Tensor(data[f"w{i}"]),
                                   bias_init=Tensor(data[f"b{i}"])))
            if i < len(SIZES) - 2:
                layers.append(nn.ReLU())
        net = nn.SequentialCell(layers)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.SGD(net.trainable_params(), learning_rate=LR)
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

        def step():
            loss, grads = grad_fn(x, labels)
            opt(grads)
            return loss

        return net, step

    x, labels = Tensor(data["x"]), Tensor(data["labels"])
    net, step = make_model()
    last = net.trainable_params()[-1]

    def run_step():
        def sync(loss):
            loss.asnumpy()
            last.asnumpy()  # wait for the update too
        return step_sample(step, sync)

    def check_step():
        fresh_net, fresh_step = make_model()
        losses = [float(fresh_step().asnumpy()) for _ in range(CHECK_STEPS)]
        return digest(np.array(losses), fresh_net.trainable_params()[4].asnumpy())

    ex, eb = Tensor(data["eager_x"]), Tensor(data["eager_b"])
    chain_grad = ms.grad(chain, grad_position=1)

    runs = {"step": run_step, "tape": lambda: timed(lambda: chain_grad(ex, eb).asnumpy())}
    checks = {"step": check_step, "tape": lambda: digest(chain_grad(ex, eb).asnumpy())}
    return serve(reply, runs, checks, THREADS)


# --- profile ----------------------------------------------------------------------------------
def profile(data) -> int:
    """microspore's training step alone: its time per step, then a cProfile of it."""
    import cProfile
    import pstats

    import ms_autodiff as ad
    import ms_ops as ops
    from ms_tensor import Parameter, Tensor

    params = [Parameter(Tensor(a)) for a in initial_params(data)]
    step = microspore_step_fn(ops, ad, params, Tensor(data["x"]), Tensor(data["labels"]))
    run_steps(step, 20)
    n = 200
    per_step = min(timed(lambda: run_steps(step, n)) for _ in range(3)) / n
    print(f"microspore step: {per_step * 1e3:.3f} ms ({1 / per_step:.0f} steps/s)")
    prof = cProfile.Profile()
    prof.runcall(run_steps, step, n)
    pstats.Stats(prof).sort_stats("tottime").print_stats(20)
    return 0


# --- the local frameworks, each in a worker process of this interpreter ----------------------
# Each framework's thread pools (OpenBLAS's, PyTorch's own libgomp) keep spinning for a while
# after its sample; in one process they would steal a core from the next framework. So each
# runs in its own process, stopped (SIGSTOP) while the others run (see _workers.Worker).
_LOCAL = {"microspore": microspore_rows, "numpy": numpy_rows, "PyTorch": torch_rows}


def local_worker_main(data_path: str) -> int:
    """One framework's rows (``BENCH_FRAMEWORK``), answering the driver's requests; "hello"
    lists the rows (key, case, label, note) and the framework's notes."""
    reply = reply_channel()
    data = dict(np.load(data_path))
    notes: list[str] = []
    rows = _LOCAL[os.environ["BENCH_FRAMEWORK"]](data, notes)
    keys = [str(i) for i in range(len(rows))]
    return serve(reply, {k: r.run for k, r in zip(keys, rows)},
                 {k: r.check for k, r in zip(keys, rows)},
                 hello={"notes": notes,
                        "rows": [[k, r.case, r.label, r.note] for k, r in zip(keys, rows)]})


def local_rows(data_path, notes, workers) -> list[Row]:
    rows = []
    for name in _LOCAL:
        try:
            worker = Worker(sys.executable, __file__, data_path,
                            {**START_ENV, "BENCH_FRAMEWORK": name}, flag="--local-worker")
        except (OSError, RuntimeError) as e:
            notes.append(f"{name} skipped: {e}")
            continue
        workers.append(worker)
        notes += worker.hello["notes"]
        rows += [Row(case, label, lambda k=k, w=worker: w.run(k),
                     lambda k=k, w=worker: w.check(k), note)
                 for k, case, label, note in worker.hello["rows"]]
    return rows


# --- driver -----------------------------------------------------------------------------------
# No pause between samples: idle workers are stopped instead, and on this VM a pause makes
# the next calls slower (clocks ramp back up).
SETTLE_S = {"step": 0.0, "tape": 0.0}


def table(rows) -> str:
    lines = ["| case | implementation | median | spread (IQR) | time / microspore's |",
             "|---|---|---:|---:|---:|"]
    for case in ("step", "tape"):
        case_rows = [r for r in rows if r.case == case and r.samples]
        base = next((statistics.median(r.samples) for r in case_rows
                     if r.label.startswith("microspore")), None)
        for r in case_rows:
            med, q1, q3 = median_iqr(r.samples)
            if case == "step":  # a higher rate is better: the IQR's ends swap
                cell = f"{STEPS / med:.0f} steps/s"
                spread = f"{STEPS / q3:.0f}-{STEPS / q1:.0f}"
            else:
                us = 1e6 / EAGER_OPS
                cell, spread = f"{num(med * us)} us/op", f"{num(q1 * us)}-{num(q3 * us)}"
            ratio = f"{med / base:.2f}" if base else "n/a"
            lines.append(f"| {case} | {r.label} | {cell} | {spread} | {ratio} |")
    return "\n".join(lines)


def goals(rows) -> list[str]:
    med = {r.label: statistics.median(r.samples) for r in rows if r.samples}
    out = []
    ms_step = med.get("microspore (value_and_grad + ApplyGradientDescent)")
    t_step = med.get("PyTorch eager (nn.Linear, optim.SGD)")
    if ms_step and t_step:
        out.append(f"training step: microspore {STEPS / ms_step:.0f} steps/s vs PyTorch eager "
                   f"{STEPS / t_step:.0f} steps/s -> {t_step / ms_step:.2f}x PyTorch's rate "
                   "(goal >= 1x)")
    us = 1e6 / EAGER_OPS
    fwd = med.get("microspore grad: forward only (recording on)")
    t_fwd = med.get("PyTorch, forward only (requires_grad=True)")
    if fwd and t_fwd:
        out.append(f"eager, real tape: microspore {fwd * us:.2f} us/op vs PyTorch "
                   f"requires_grad=True {t_fwd * us:.2f} us/op -> {fwd / t_fwd:.2f}x")
    return out


def main(argv=None) -> int:
    p = arg_parser(__doc__, ("step", "tape"))
    p.add_argument("--profile", action="store_true",
                   help="profile microspore's training step instead of comparing")
    p.add_argument("--local-worker", metavar="DATA", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    if args.local_worker:
        return local_worker_main(args.local_worker)
    cases = args.case or ["step", "tape"]
    plan = {"step": (3, 1), "tape": (5, 1)} if args.quick else {"step": (21, 2),
                                                                "tape": (31, 3)}
    load = os.getloadavg()
    notes: list[str] = []
    workers: list = []
    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "inputs.npz")
        make_inputs(data_path)
        data = dict(np.load(data_path))
        if args.profile:
            return profile(data)
        try:
            rows = local_rows(data_path, notes, workers) + mindspore_rows(data_path, notes,
                                                                         workers)
            rows = check_agreement([r for r in rows if r.case in cases], notes, "numpy",
                                   atol=1e-4)
            for case in cases:
                run_rounds(rows, case, *plan[case], SETTLE_S[case])
        finally:
            for w in workers:
                w.close()

    print(f"Machine: {machine()}.\n")
    print(f"step: MLP {'-'.join(map(str, SIZES))}, ReLU, batch {BATCH}, float32, sparse softmax "
          f"cross-entropy (mean), SGD lr {LR}; one sample = {STEPS} steps after {WARM_STEPS} "
          f"untimed ones. tape: {EAGER_OPS} ops (x = x + b; x = x * b) on float32[16], "
          "differentiated with respect to b. "
          + rounds_line(plan, cases, args.quick) + "\n")
    print(table(rows))
    print()
    print("- Last column: this median time divided by microspore's (the first microspore row "
          "of the case); below 1 means faster than microspore.")
    print(f"- {load_line(load[0])}.")
    print_notes(notes, rows, goals(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
