"""microspore against PyTorch and MindSpore on the CPU, in one run, with 2 threads each.

Two cases:

* ``eager`` -- per-operator overhead: a chain of 1,000 small ops on 16-element float32
  tensors (``x = x + b; x = x * b`` 500 times), in microseconds per op. Such tensors cost
  nothing to compute, so the figure is what the framework adds around each kernel.
* ``conv`` -- Conv2D forward and backward (N=32, 16->32 channels, 32x32, 3x3, pad 1,
  float32): milliseconds and GFLOP/s.

Each sample of each implementation runs in turn (round 1: A B C ..., round 2: A B C ...),
so a noisy neighbour or a frequency change hits every implementation alike; the table
shows medians over rounds and each median's ratio to microspore's from the same run.

MindSpore lives in its own interpreter (it wants numpy<2), named by ``MS_PYTHON``
(default ``/tmp/msenv/bin/python`` where that exists). This file then also runs there as a
worker (``--worker``) that answers "run this case once" over a pipe, so its samples
interleave with the others. PyTorch is imported from this interpreter. A framework that
is not installed is skipped with a note; neither is a dependency of the project.

Usage: ``python benchmarks/bench_ops.py [--quick] [--case eager|conv]``.
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
    worker_rows,
)
from numpy.lib.stride_tricks import sliding_window_view

PAIRS = 500                       # eager: 500 x (add, mul) = 1,000 ops
EAGER_OPS = 2 * PAIRS
CONV_N, CONV_C, CONV_O, CONV_HW, CONV_K = 32, 16, 32, 32, 3
# Forward: 2 flops (multiply, add) per weight tap per output element; the backward pass
# (input gradient and weight gradient) costs the same again twice.
CONV_FWD_FLOP = 2 * CONV_N * CONV_O * CONV_HW * CONV_HW * CONV_C * CONV_K * CONV_K
CONV_FLOP = 3 * CONV_FWD_FLOP
# A conv sample is the mean of this many calls back to back: after the pause that lets the
# previous framework's threads sleep, a single call would mostly time waking up.
CONV_REPS = 5


# --- inputs and the operations being timed, shared by every framework -----------------------
def make_inputs(path: str) -> None:
    rng = np.random.default_rng(0)
    np.savez(
        path,
        eager_x=rng.standard_normal(16).astype(np.float32),
        eager_b=np.full(16, 0.5, np.float32),  # keeps x bounded: x -> (x + 0.5) * 0.5
        conv_x=rng.standard_normal((CONV_N, CONV_C, CONV_HW, CONV_HW)).astype(np.float32),
        conv_w=(rng.standard_normal((CONV_O, CONV_C, CONV_K, CONV_K)) * 0.1).astype(np.float32),
    )


def chain(x, b):
    """The eager workload: works on any array type with ``+`` and ``*``."""
    for _ in range(PAIRS):
        x = x + b
        x = x * b
    return x


def conv_numpy(x, w, dout):
    """im2col reference: the convolution as one matrix product, the backward as two."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = sliding_window_view(xp, (kh, kw), axis=(2, 3))          # n, c, h, w, kh, kw
    cols = cols.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * wd, c * kh * kw)
    wm = w.reshape(o, c * kh * kw)
    y = np.ascontiguousarray((cols @ wm.T).reshape(n, h, wd, o).transpose(0, 3, 1, 2))
    dm = dout.transpose(0, 2, 3, 1).reshape(n * h * wd, o)
    dw = (dm.T @ cols).reshape(w.shape)
    dcols = (dm @ wm).reshape(n, h, wd, c, kh, kw)
    dxp = np.zeros_like(xp)
    for i in range(kh):
        for j in range(kw):
            dxp[:, :, i:i + h, j:j + wd] += dcols[..., i, j].transpose(0, 3, 1, 2)
    return y, np.ascontiguousarray(dxp[:, :, 1:-1, 1:-1]), dw


# --- implementations: each row is (case, label, run() -> seconds, check() -> digest) --------
def numpy_rows(data):
    x, b = data["eager_x"], data["eager_b"]
    cx, cw = data["conv_x"], data["conv_w"]
    dout = np.ones((CONV_N, CONV_O, CONV_HW, CONV_HW), np.float32)
    return [
        Row("eager", "numpy (bare ndarray)", lambda: timed(lambda: chain(x, b)),
            lambda: digest(chain(x, b))),
        Row("conv", "numpy im2col reference",
            lambda: timed(lambda: conv_numpy(cx, cw, dout), CONV_REPS),
            lambda: digest(*conv_numpy(cx, cw, dout))),
    ]


def microspore_rows(data, notes):
    try:
        import ms_ops
        from ms_tensor import Tensor, registry
    except ImportError as e:
        notes.append(f"microspore skipped: {e}")
        return []
    x, b = Tensor(data["eager_x"]), Tensor(data["eager_b"])

    def recording(fn):
        # A real tape, as inside ms_autodiff.grad: b is watched, so every op of the chain
        # is recorded (the backward pass is not run: this row is the forward's cost).
        from ms_autodiff.tape import Tape

        def wrapped():
            with Tape() as tape:
                tape.watch(b)
                return fn()
        return wrapped

    def eager():
        return chain(x, b).asnumpy()

    rows = [
        Row("eager", "microspore, recording off", lambda: timed(eager),
            lambda: digest(eager())),
        Row("eager", "microspore, recording on (ms-autodiff tape)",
            lambda: timed(recording(eager)), lambda: digest(recording(eager)())),
    ]

    reg = registry.load()
    bprop = reg.bprop("Conv2D")
    if reg.primitive("Conv2D") is None or bprop is None:
        missing = "operator" if reg.primitive("Conv2D") is None else "gradient rule"
        notes.append(f"microspore conv: PENDING -- no Conv2D {missing} is registered yet, so "
                     "the conv row is skipped.")
        return rows
    conv = ms_ops.Conv2D(CONV_O, CONV_K, pad_mode="pad", pad=1)
    cx, cw = Tensor(data["conv_x"]), Tensor(data["conv_w"])
    dout = Tensor(np.ones((CONV_N, CONV_O, CONV_HW, CONV_HW), np.float32))
    attrs = conv.attrs

    def fwd_bwd():
        y = conv(cx, cw)
        dx, dw = bprop(cx, cw, out=y, dout=dout, **attrs)[:2]
        return y, dx, dw

    kernel = reg.kernel("Conv2D", "CPU")
    rows.append(Row("conv", "microspore (Conv2D + its bprop)", lambda: timed(fwd_bwd, CONV_REPS),
                    lambda: digest(*(t.asnumpy() for t in fwd_bwd())),
                    note=f"microspore Conv2D CPU kernel: "
                         f"`{kernel.__module__}.{kernel.__qualname__}`."))
    return rows


# --- PyTorch: a worker process of this interpreter -------------------------------------------
# PyTorch ships its own libgomp.so.1, which would then serve every OpenMP library in the
# process (ms-ops' kernels included) with PyTorch's spinning wait policy; each framework
# therefore runs in its own process, and an idle worker is stopped (see _workers.Worker).
_TORCH_CASES = {"eager_nograd": ("eager", "PyTorch, requires_grad=False"),
                "eager_grad": ("eager", "PyTorch, requires_grad=True"),
                "conv": ("conv", "PyTorch (conv2d + autograd.grad)")}


def torch_rows(data_path, notes, workers):
    try:
        worker = Worker(sys.executable, __file__, data_path, START_ENV, flag="--torch-worker")
    except (OSError, RuntimeError) as e:
        notes.append(f"PyTorch skipped: {e}")
        return []
    workers.append(worker)
    if "skipped" in worker.hello:
        notes.append(worker.hello["skipped"])
        return []
    notes.append(f"PyTorch {worker.hello['version']} (own process), "
                 f"torch.set_num_threads({THREADS}).")
    return [Row(case, label, lambda k=key: worker.run(k), lambda k=key: worker.check(k))
            for key, (case, label) in _TORCH_CASES.items()]


def torch_worker_main(data_path: str) -> int:
    """The PyTorch side: set up every case, then answer the driver's requests."""
    reply = reply_channel()
    torch = import_torch(THREADS)
    if torch is None:
        return serve(reply, {}, {}, hello=TORCH_MISSING)
    data = np.load(data_path)
    x = torch.from_numpy(data["eager_x"].copy())
    b = torch.from_numpy(data["eager_b"].copy())
    bg = b.clone().requires_grad_(True)
    cx = torch.from_numpy(data["conv_x"].copy()).requires_grad_(True)
    cw = torch.from_numpy(data["conv_w"].copy()).requires_grad_(True)
    dout = torch.ones((CONV_N, CONV_O, CONV_HW, CONV_HW))

    def fwd_bwd():
        y = torch.nn.functional.conv2d(cx, cw, padding=1)
        dx, dw = torch.autograd.grad(y, (cx, cw), dout)
        return y, dx, dw

    runs = {"eager_nograd": lambda: timed(lambda: chain(x, b)),
            "eager_grad": lambda: timed(lambda: chain(x, bg)),
            "conv": lambda: timed(fwd_bwd, CONV_REPS)}
    checks = {"eager_nograd": lambda: digest(chain(x, b).numpy()),
              "eager_grad": lambda: digest(chain(x, bg).detach().numpy()),
              "conv": lambda: digest(*(t.detach().numpy() for t in fwd_bwd()))}
    return serve(reply, runs, checks, hello={"version": torch.__version__})


# --- MindSpore: a worker process in MindSpore's interpreter ---------------------------------
def mindspore_rows(data_path, notes, workers):
    return worker_rows(__file__, data_path, START_ENV, notes, workers,
                       {"eager": "MindSpore PyNative",
                        "conv": "MindSpore PyNative (value_and_grad)"})


def worker_main(data_path: str) -> int:
    """The MindSpore side: set up both cases, then answer the driver's requests."""
    reply = reply_channel()
    ms = mindspore_cpu(THREADS)
    from mindspore import Tensor, ops

    data = np.load(data_path)
    x, b = Tensor(data["eager_x"]), Tensor(data["eager_b"])
    conv = ops.Conv2D(CONV_O, CONV_K, pad_mode="pad", pad=1)
    cx, cw = Tensor(data["conv_x"]), Tensor(data["conv_w"])
    # Without sens, the gradient of a non-scalar output uses a ones dout, like the others.
    grad = ms.value_and_grad(lambda a, w: conv(a, w), grad_position=(0, 1))

    def eager():
        return chain(x, b).asnumpy()

    def fwd_bwd():
        y, (dx, dw) = grad(cx, cw)
        return y.asnumpy(), dx.asnumpy(), dw.asnumpy()

    runs = {"eager": lambda: timed(eager), "conv": lambda: timed(fwd_bwd, CONV_REPS)}
    checks = {"eager": lambda: digest(eager()), "conv": lambda: digest(*fwd_bwd())}
    return serve(reply, runs, checks, THREADS)


# --- driver -----------------------------------------------------------------------------------
# No pause between conv samples: on this VM an idle pause leaves the next several calls
# ~2x slower (clocks ramp back up), which would time waking up, not convolution. Idle
# workers are stopped instead (see _workers.Worker) and the order above keeps spinning
# OpenBLAS threads away from the frameworks that would feel them.
SETTLE_S = {"eager": 0.0, "conv": 0.0}


def table(rows) -> str:
    lines = ["| case | implementation | median | spread (IQR) | GFLOP/s | time / microspore's |",
             "|---|---|---:|---:|---:|---:|"]
    for case, unit, scale in (("eager", "us/op", 1e6 / EAGER_OPS), ("conv", "ms", 1e3)):
        case_rows = [r for r in rows if r.case == case and r.samples]
        base = next((statistics.median(r.samples) for r in case_rows
                     if r.label.startswith("microspore")), None)
        for r in case_rows:
            med, q1, q3 = median_iqr(r.samples)
            gflops = f"{CONV_FLOP / med / 1e9:.1f}" if case == "conv" else ""
            ratio = f"{med / base:.2f}" if base else "n/a"
            lines.append(f"| {case} | {r.label} | {num(med * scale)} {unit} | "
                         f"{num(q1 * scale)}-{num(q3 * scale)} | {gflops} | {ratio} |")
        if case == "conv" and case_rows and \
                not any(r.label.startswith("microspore") for r in case_rows):
            lines.append("| conv | microspore (Conv2D + its bprop) | pending | | | |")
    return "\n".join(lines)


def goals(rows) -> list[str]:
    med = {r.label: statistics.median(r.samples) for r in rows if r.samples}
    out = []
    us = 1e6 / EAGER_OPS
    off = med.get("microspore, recording off")
    on = med.get("microspore, recording on (ms-autodiff tape)")
    t_off, t_on = med.get("PyTorch, requires_grad=False"), med.get("PyTorch, requires_grad=True")
    if off and t_off:
        out.append(f"eager, recording off: microspore {off * us:.2f} us/op vs PyTorch "
                   f"{t_off * us:.2f} us/op -> {off / t_off:.2f}x PyTorch (goal <= 1x)")
    if on and t_on:
        out.append(f"eager, recording on: microspore {on * us:.2f} us/op vs PyTorch "
                   f"requires_grad=True {t_on * us:.2f} us/op -> {on / t_on:.2f}x "
                   f"(goal <= 2x)")
    conv = next((v for k, v in med.items() if k.startswith("microspore (Conv2D")), None)
    t_conv = med.get("PyTorch (conv2d + autograd.grad)")
    if conv and t_conv:
        out.append(f"conv forward+backward: microspore {conv * 1e3:.2f} ms vs PyTorch "
                   f"{t_conv * 1e3:.2f} ms -> {conv / t_conv:.2f}x PyTorch (goal <= 1x)")
    return out


def main(argv=None) -> int:
    p = arg_parser(__doc__, ("eager", "conv"))
    p.add_argument("--torch-worker", metavar="DATA", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    if args.torch_worker:
        return torch_worker_main(args.torch_worker)
    cases = args.case or ["eager", "conv"]
    plan = {"eager": (5, 1), "conv": (3, 1)} if args.quick else {"eager": (41, 3),
                                                                  "conv": (15, 2)}

    load = os.getloadavg()
    notes: list[str] = []
    workers: list = []
    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "inputs.npz")
        make_inputs(data_path)
        data = dict(np.load(data_path))
        try:
            # numpy's OpenBLAS threads spin after each sample: MindSpore, whose second-long
            # conv cannot feel it, runs next, so no framework has to pause and start cold.
            rows = (microspore_rows(data, notes) + torch_rows(data_path, notes, workers)
                    + numpy_rows(data) + mindspore_rows(data_path, notes, workers))
            rows = check_agreement([r for r in rows if r.case in cases], notes, "numpy",
                                   atol=1e-3)
            for case in cases:
                run_rounds(rows, case, *plan[case], SETTLE_S[case])
        finally:
            for w in workers:
                w.close()

    print(f"Machine: {machine()}.\n")
    print(f"eager: {EAGER_OPS} ops (x = x + b; x = x * b) on float32[16], one sample = one "
          f"chain; conv: N={CONV_N}, {CONV_C}->{CONV_O} channels, {CONV_HW}x{CONV_HW}, "
          f"{CONV_K}x{CONV_K}, pad 1, float32, forward + backward with a ones dout "
          f"({CONV_FLOP / 1e9:.3f} GFLOP). " + rounds_line(plan, cases, args.quick) + "\n")
    print(table(rows))
    print()
    print("- Last column: this median divided by microspore's (recording off for eager); "
          "below 1 means faster than microspore.")
    print(f"- {load_line(load[0])} (a busy machine widens the spreads).")
    print_notes(notes, rows, goals(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
