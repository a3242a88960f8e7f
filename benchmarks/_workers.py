"""A benchmark's MindSpore side: the script itself, run as a worker over a pipe.

MindSpore wants numpy<2, so it cannot share the driver's interpreter. A benchmark script
runs itself again there with ``--worker DATA``; the worker sets up its cases and answers
one JSON request per line ("hello", "run" a case once and return its seconds, "check" a
case and return its digest). The driver asks for one sample at a time, so the worker's
samples interleave with those of the frameworks in the driver's process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile

from _common import Row


def mindspore_python() -> str | None:
    """The interpreter that has MindSpore: ``MS_PYTHON``, else ``/tmp/msenv/bin/python``."""
    path = os.environ.get("MS_PYTHON")
    if path:
        return path
    default = "/tmp/msenv/bin/python"
    return default if os.path.exists(default) else None


class Worker:
    """Drives ``python script --worker data_path`` with environment ``env``."""

    def __init__(self, python: str, script: str, data_path: str, env: dict,
                 flag: str = "--worker"):
        self.python = python
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [python, os.path.abspath(script), flag, data_path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, env=env,
        )
        self.hello = self.request({"cmd": "hello"})

    def request(self, msg: dict):
        # Between requests the worker is stopped (SIGSTOP): MindSpore's runtime threads keep
        # polling while idle, which would steal a core from whatever runs next.
        self.proc.send_signal(signal.SIGCONT)
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if line and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGSTOP)
        if not line:
            self.log.seek(0)
            tail = self.log.read()[-2000:]
            raise RuntimeError(f"MindSpore worker exited (rc={self.proc.wait()}):\n{tail}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"MindSpore worker: {reply['error']}")
        return reply["result"]

    def run(self, case) -> float:
        """One sample of ``case``, in seconds."""
        return self.request({"cmd": "run", "case": case})

    def check(self, case) -> list:
        """The digest of ``case``'s result."""
        return self.request({"cmd": "check", "case": case})

    def row(self, case, label) -> Row:
        """A table row whose samples and digest come from this worker's ``case``."""
        return Row(case, label, lambda: self.run(case), lambda: self.check(case))

    def describe(self) -> str:
        """The note naming MindSpore's version, its interpreter and (if set) its threads."""
        threads = f", {self.hello['threads']}" if "threads" in self.hello else ""
        return f"MindSpore {self.hello['version']} (worker: {self.python}){threads}."

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def start_worker(script: str, data_path: str, env: dict, notes: list, workers: list,
                 label: str = "MindSpore") -> Worker | None:
    """Start ``script``'s worker in MindSpore's interpreter and add it to ``workers``; where
    that fails, add a note saying why ``label`` is skipped and return None."""
    python = mindspore_python()
    if python is None:
        notes.append("MindSpore skipped: set MS_PYTHON to an interpreter that has mindspore.")
        return None
    try:
        worker = Worker(python, script, data_path, env)
    except (OSError, RuntimeError) as e:
        notes.append(f"{label} skipped: worker {python} did not start: {e}")
        return None
    workers.append(worker)
    return worker


def worker_rows(script: str, data_path: str, env: dict, notes: list, workers: list,
                labels: dict) -> list[Row]:
    """One row per ``{case: label}`` from ``script``'s worker, with the note naming its
    MindSpore; none (and a note saying why) where the worker does not start."""
    worker = start_worker(script, data_path, env, notes, workers)
    if worker is None:
        return []
    notes.append(worker.describe())
    return [worker.row(case, label) for case, label in labels.items()]


def mindspore_cpu(threads: int, mode: str | None = "PYNATIVE_MODE"):
    """Import MindSpore on the CPU, in ``mode`` (a context constant's name; None leaves the
    default), with ``threads`` operator and dispatch threads."""
    import mindspore as ms

    ms.set_device("CPU")
    if mode is not None:
        ms.set_context(mode=getattr(ms, mode))
    ms.device_context.cpu.op_tuning.threads_num(threads)
    ms.runtime.dispatch_threads_num(threads)
    return ms


def reply_channel():
    """The pipe to the driver; afterwards stray prints (C-level included) go to stderr."""
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    return reply


TORCH_MISSING = {"skipped": "PyTorch skipped: not installed in this interpreter "
                            "(`pip install torch==2.13.0`)."}


def import_torch(threads: int):
    """PyTorch set to ``threads`` threads, or None when it is not installed (a worker then
    answers ``serve(reply, {}, {}, hello=TORCH_MISSING)``)."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    return torch


def serve(reply, runs: dict, checks: dict, threads: int | None = None,
          hello: dict | None = None) -> int:
    """Answer requests from stdin: ``runs[case]()`` gives seconds, ``checks[case]()`` a
    digest, "hello" MindSpore's version and the ``threads`` it was given (or ``hello``, for a
    worker of another framework). An error is reported and serving goes on: the driver
    decides what to skip."""
    if hello is None:
        import mindspore

        hello = {"version": mindspore.__version__}
        if threads is not None:
            hello["threads"] = f"op threads_num({threads}), dispatch_threads_num({threads})"
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "hello":
                result = hello
            elif msg["cmd"] == "run":
                result = runs[msg["case"]]()
            else:
                result = checks[msg["case"]]()
            reply.write(json.dumps({"result": result}) + "\n")
        except Exception as e:
            reply.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        reply.flush()
    return 0
