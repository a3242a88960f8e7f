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

import os

THREADS = 2
# Before numpy (OpenBLAS), torch or MindSpore start their thread pools.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(THREADS)
os.environ.setdefault("GLOG_v", "3")  # MindSpore: log errors only
# The environment every framework starts from: importing one may set variables (ms_ops sets
# OMP_WAIT_POLICY for its own OpenMP runtime) that must not reach the others.
START_ENV = dict(os.environ)

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

PAIRS = 500                       # eager: 500 x (add, mul) = 1,000 ops
EAGER_OPS = 2 * PAIRS
CONV_N, CONV_C, CONV_O, CONV_HW, CONV_K = 32, 16, 32, 32, 3
# Forward: 2 flops (multiply, add) per weight tap per output element; the backward pass
# (input gradient and weight gradient) costs the same again twice.
CONV_FWD_FLOP = 2 * CONV_N * CONV_O * CONV_HW * CONV_HW * CONV_C * CONV_K * CONV_K
CONV_FLOP = 3 * CONV_FWD_FLOP


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


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def digest(*arrays) -> list:
    """A few numbers that identify a result, to check all implementations agree."""
    out = []
    for a in arrays:
        a = np.asarray(a, np.float64).ravel()
        out += [float(np.linalg.norm(a)), *map(float, a[:4])]
    return out


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
class Row:
    """One implementation of one case; ``note`` is printed under the table if it ran."""

    def __init__(self, case, label, run, check, note=None):
        self.case, self.label, self.run, self.check, self.note = case, label, run, check, note
        self.samples: list[float] = []


def numpy_rows(data):
    x, b = data["eager_x"], data["eager_b"]
    cx, cw = data["conv_x"], data["conv_w"]
    dout = np.ones((CONV_N, CONV_O, CONV_HW, CONV_HW), np.float32)
    return [
        Row("eager", "numpy (bare ndarray)", lambda: timed(lambda: chain(x, b)),
            lambda: digest(chain(x, b))),
        Row("conv", "numpy im2col reference", lambda: timed(lambda: conv_numpy(cx, cw, dout)),
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
    rows.append(Row("conv", "microspore (Conv2D + its bprop)", lambda: timed(fwd_bwd),
                    lambda: digest(*(t.asnumpy() for t in fwd_bwd())),
                    note=f"microspore Conv2D CPU kernel: "
                         f"`{kernel.__module__}.{kernel.__qualname__}`."))
    return rows


def torch_rows(data, notes):
    try:
        import torch
    except ImportError:
        notes.append("PyTorch skipped: not installed in this interpreter "
                     "(`pip install torch==2.13.0`).")
        return []
    torch.set_num_threads(THREADS)
    notes.append(f"PyTorch {torch.__version__}, torch.set_num_threads({THREADS}).")
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

    return [
        Row("eager", "PyTorch, requires_grad=False", lambda: timed(lambda: chain(x, b)),
            lambda: digest(chain(x, b).numpy())),
        Row("eager", "PyTorch, requires_grad=True", lambda: timed(lambda: chain(x, bg)),
            lambda: digest(chain(x, bg).detach().numpy())),
        Row("conv", "PyTorch (conv2d + autograd.grad)", lambda: timed(fwd_bwd),
            lambda: digest(*(t.detach().numpy() for t in fwd_bwd()))),
    ]


# --- MindSpore: a worker process in MindSpore's interpreter ---------------------------------
def mindspore_python() -> str | None:
    path = os.environ.get("MS_PYTHON")
    if path:
        return path
    default = "/tmp/msenv/bin/python"
    return default if os.path.exists(default) else None


class MindSporeWorker:
    """Drives ``bench_ops.py --worker`` in MindSpore's interpreter, one request per line."""

    def __init__(self, python: str, data_path: str):
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [python, os.path.abspath(__file__), "--worker", data_path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
            env=START_ENV,
        )
        self.hello = self.request({"cmd": "hello"})

    def request(self, msg: dict):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.log.seek(0)
            tail = self.log.read()[-2000:]
            raise RuntimeError(f"MindSpore worker exited (rc={self.proc.wait()}):\n{tail}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"MindSpore worker: {reply['error']}")
        return reply["result"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        self.log.close()


def mindspore_rows(data_path, notes, workers):
    python = mindspore_python()
    if python is None:
        notes.append("MindSpore skipped: set MS_PYTHON to an interpreter that has mindspore.")
        return []
    try:
        worker = MindSporeWorker(python, data_path)
    except (OSError, RuntimeError) as e:
        notes.append(f"MindSpore skipped: worker {python} did not start: {e}")
        return []
    workers.append(worker)
    notes.append(f"MindSpore {worker.hello['version']} (worker: {python}), "
                 f"{worker.hello['threads']}.")

    def row(case, label):
        return Row(case, label, lambda: worker.request({"cmd": "run", "case": case}),
                   lambda: worker.request({"cmd": "check", "case": case}))

    return [row("eager", "MindSpore PyNative"),
            row("conv", "MindSpore PyNative (value_and_grad)")]


def worker_main(data_path: str) -> int:
    """The MindSpore side: set up both cases, then answer requests from stdin."""
    # Stray prints (MindSpore's own, C-level included) must not corrupt the reply pipe.
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    import mindspore as ms
    from mindspore import Tensor, ops

    ms.set_device("CPU")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.device_context.cpu.op_tuning.threads_num(THREADS)
    ms.runtime.dispatch_threads_num(THREADS)
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

    cases = {"eager": eager, "conv": fwd_bwd}
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "hello":
                result = {"version": ms.__version__,
                          "threads": f"op threads_num({THREADS}), "
                                     f"dispatch_threads_num({THREADS})"}
            elif msg["cmd"] == "run":
                result = timed(cases[msg["case"]])
            else:
                out = cases[msg["case"]]()
                result = digest(*out) if isinstance(out, tuple) else digest(out)
            reply.write(json.dumps({"result": result}) + "\n")
        except Exception as e:  # report, keep serving: the driver decides what to skip
            reply.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        reply.flush()
    return 0


# --- driver -----------------------------------------------------------------------------------
def check_agreement(rows, notes):
    """Drop rows whose result differs from the numpy one (a wrong answer has no speed)."""
    kept = []
    for case in dict.fromkeys(r.case for r in rows):
        case_rows = [r for r in rows if r.case == case]
        ref = next(r for r in case_rows if r.label.startswith("numpy"))
        want = np.array(ref.check())
        for r in case_rows:
            try:
                got = np.array(r.check())
            except Exception as e:  # one failing framework must not end the run
                notes.append(f"{r.label} ({case}) skipped: {type(e).__name__}: {e}")
                continue
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-3, atol=1e-3):
                notes.append(f"{r.label} ({case}) skipped: result differs from numpy's "
                             f"(digest {got[:3]} vs {want[:3]})")
                continue
            kept.append(r)
    return kept


# After a multi-threaded kernel, OpenMP and OpenBLAS worker threads spin for up to
# ~0.2 s waiting for more work; on 2 cores they would steal the next implementation's
# core. A pause before each conv sample lets every pool fall asleep first.
SETTLE_S = {"eager": 0.0, "conv": 0.3}


def run_rounds(rows, case, rounds, warmup):
    case_rows = [r for r in rows if r.case == case]
    for i in range(warmup + rounds):
        for r in case_rows:
            time.sleep(SETTLE_S[case])
            t = r.run()
            if i >= warmup:
                r.samples.append(t)


def num(v: float) -> str:
    """Three significant digits, without exponents."""
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def table(rows) -> str:
    lines = ["| case | implementation | median | spread (IQR) | GFLOP/s | time / microspore's |",
             "|---|---|---:|---:|---:|---:|"]
    for case, unit, scale in (("eager", "us/op", 1e6 / EAGER_OPS), ("conv", "ms", 1e3)):
        case_rows = [r for r in rows if r.case == case and r.samples]
        base = next((statistics.median(r.samples) for r in case_rows
                     if r.label.startswith("microspore")), None)
        for r in case_rows:
            med = statistics.median(r.samples)
            q = statistics.quantiles(r.samples, n=4) if len(r.samples) > 1 else [med] * 3
            gflops = f"{CONV_FLOP / med / 1e9:.1f}" if case == "conv" else ""
            ratio = f"{med / base:.2f}" if base else "n/a"
            lines.append(f"| {case} | {r.label} | {num(med * scale)} {unit} | "
                         f"{num(q[0] * scale)}-{num(q[2] * scale)} | {gflops} | {ratio} |")
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


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{cpu}, {os.cpu_count()} logical CPUs, {THREADS} threads per framework; "
            f"Python {platform.python_version()}, numpy {np.__version__}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few rounds: a smoke run, not numbers")
    p.add_argument("--case", choices=("eager", "conv"), action="append",
                   help="run only this case (repeatable); default both")
    p.add_argument("--worker", metavar="DATA", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    cases = args.case or ["eager", "conv"]
    plan = {"eager": (5, 1), "conv": (3, 1)} if args.quick else {"eager": (41, 3),
                                                                  "conv": (15, 2)}

    load = os.getloadavg()
    notes: list[str] = []
    workers: list[MindSporeWorker] = []
    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "inputs.npz")
        make_inputs(data_path)
        data = dict(np.load(data_path))
        try:
            # PyTorch first: its OpenMP runtime reads the environment when it loads.
            torch = torch_rows(data, notes)
            rows = (microspore_rows(data, notes) + numpy_rows(data) + torch
                    + mindspore_rows(data_path, notes, workers))
            rows = check_agreement([r for r in rows if r.case in cases], notes)
            for case in cases:
                rounds, warmup = plan[case]
                print(f"running {case}: {rounds} rounds x {sum(r.case == case for r in rows)} "
                      "implementations ...", file=sys.stderr, flush=True)
                run_rounds(rows, case, rounds, warmup)
        finally:
            for w in workers:
                w.close()

    print(f"Machine: {machine()}.\n")
    print(f"eager: {EAGER_OPS} ops (x = x + b; x = x * b) on float32[16], one sample = one "
          f"chain; conv: N={CONV_N}, {CONV_C}->{CONV_O} channels, {CONV_HW}x{CONV_HW}, "
          f"{CONV_K}x{CONV_K}, pad 1, float32, forward + backward with a ones dout "
          f"({CONV_FLOP / 1e9:.3f} GFLOP). Medians over "
          + ", ".join(f"{plan[c][0]} rounds ({c})" for c in cases)
          + " after warm-up; implementations interleaved within each round."
          + (" QUICK RUN: too few rounds for reliable numbers." if args.quick else "") + "\n")
    print(table(rows))
    print()
    print("- Last column: this median divided by microspore's (recording off for eager); "
          "below 1 means faster than microspore.")
    print(f"- Load average (1 min) before / after: {load[0]:.2f} / {os.getloadavg()[0]:.2f} "
          f"(a busy machine widens the spreads).")
    notes += list(dict.fromkeys(r.note for r in rows if r.note and r.samples))
    for n in notes:
        print(f"- {n}")
    for g in goals(rows):
        print(f"- goal check: {g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
