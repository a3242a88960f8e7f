"""What every benchmark script shares: thread settings, timing, digests, the machine line,
number formatting, table rows, the agreement check and interleaved rounds.

Importing this module sets the thread-count variables, so a script imports it before numpy
(OpenBLAS), torch or MindSpore start their thread pools.
"""

from __future__ import annotations

import os

# BENCH_THREADS=1 for a loaded 2-core machine: two BLAS threads there can lose their
# core mid-call and spin (measured: a batch-64 MLP step 10x slower, sample to sample).
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(THREADS)
os.environ.setdefault("GLOG_v", "3")  # MindSpore: log errors only
# The environment every framework starts from, taken before any is imported, so that a
# variable one of them might set cannot reach the others.
START_ENV = dict(os.environ)

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

QUICK_NOTE = " QUICK RUN: too few rounds for reliable numbers."


def arg_parser(doc: str, cases, case_help: str = "run only this case (repeatable); default both"):
    """The options every comparing script has: ``--quick``, ``--case`` and the hidden
    ``--worker DATA`` by which a script runs as its own MindSpore worker."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few rounds: a smoke run, not numbers")
    p.add_argument("--case", choices=cases, action="append", help=case_help)
    p.add_argument("--worker", metavar="DATA", help=argparse.SUPPRESS)
    return p


def timed(fn, reps: int = 1) -> float:
    """Seconds per call of ``fn``, over ``reps`` calls back to back."""
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def digest(*arrays) -> list:
    """A few numbers that identify a result, to check all implementations agree."""
    out = []
    for a in arrays:
        a = np.asarray(a, np.float64).ravel()
        out += [float(np.linalg.norm(a)), *map(float, a[:4])]
    return out


def machine() -> str:
    """The CPU, thread and version line printed above every table."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{cpu}, {os.cpu_count()} logical CPUs, {THREADS} threads per framework; "
            f"Python {platform.python_version()}, numpy {np.__version__}")


def num(v: float) -> str:
    """Three significant digits, without exponents."""
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def median_iqr(samples) -> tuple[float, float, float]:
    """``(median, lower quartile, upper quartile)``; one sample is all three."""
    med = statistics.median(samples)
    q = statistics.quantiles(samples, n=4) if len(samples) > 1 else [med] * 3
    return med, q[0], q[2]


def load_line(before: float) -> str:
    return f"Load average (1 min) before / after: {before:.2f} / {os.getloadavg()[0]:.2f}"


def rounds_line(plan: dict, cases, quick: bool) -> str:
    """How many rounds each case ran, for the paragraph above a table."""
    return ("Medians over " + ", ".join(f"{plan[c][0]} rounds ({c})" for c in cases)
            + " after warm-up; implementations interleaved within each round."
            + (QUICK_NOTE if quick else ""))


class Row:
    """One implementation of one case; ``note`` is printed under the table if it ran."""

    def __init__(self, case, label, run, check, note=None):
        self.case, self.label, self.run, self.check, self.note = case, label, run, check, note
        self.samples: list[float] = []


def check_agreement(rows, notes, reference: str, atol: float, describe=None):
    """Drop rows whose ``check()`` differs from that of the case's first row labelled
    ``reference...`` (a wrong answer has no speed). ``describe(got, want)`` words the note."""
    if describe is None:
        def describe(got, want):
            return f"result differs from {reference}'s (digest {got[:3]} vs {want[:3]})"
    kept = []
    for case in dict.fromkeys(r.case for r in rows):
        case_rows = [r for r in rows if r.case == case]
        want = np.array(next(r for r in case_rows if r.label.startswith(reference)).check())
        for r in case_rows:
            try:
                got = np.array(r.check())
            except Exception as e:  # one failing framework must not end the run
                notes.append(f"{r.label} ({case}) skipped: {type(e).__name__}: {e}")
                continue
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-3, atol=atol):
                notes.append(f"{r.label} ({case}) skipped: {describe(got, want)}")
                continue
            kept.append(r)
    return kept


def run_rounds(rows, case, rounds: int, warmup: int, settle_s: float) -> None:
    """Sample every row of ``case`` once per round, in turn (round 1: A B C ..., round 2:
    A B C ...), so a noisy neighbour or a frequency change hits every implementation alike.
    ``settle_s`` before each sample lets the previous one's spinning OpenMP/OpenBLAS threads
    fall asleep: on 2 cores they would steal the next implementation's core."""
    case_rows = [r for r in rows if r.case == case]
    print(f"running {case}: {rounds} rounds x {len(case_rows)} implementations ...",
          file=sys.stderr, flush=True)
    for i in range(warmup + rounds):
        for r in case_rows:
            time.sleep(settle_s)
            t = r.run()
            if i >= warmup:
                r.samples.append(t)


def print_notes(notes, rows, goals=()) -> None:
    """The bullet list under a table: notes, those of the rows that ran, goal checks."""
    notes = notes + [r.note for r in rows if r.note and r.samples]
    for n in dict.fromkeys(notes):
        print(f"- {n}")
    for g in goals:
        print(f"- goal check: {g}")
