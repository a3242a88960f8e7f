"""A benchmark's other-interpreter side: the script itself, run as a worker over a pipe.

MindSpore wants numpy<2, so it cannot share the driver's interpreter. A benchmark script
runs itself again there with ``--worker DATA``; the worker sets up its cases and answers
one JSON request per line ("hello", "run" a case once and return its seconds, "check" a
case and return its digest). The driver asks for one sample at a time, so the worker's
samples interleave with those of the frameworks in the driver's process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile


def mindspore_python() -> str | None:
    """The interpreter that has MindSpore: ``MS_PYTHON``, else ``/tmp/msenv/bin/python``."""
    path = os.environ.get("MS_PYTHON")
    if path:
        return path
    default = "/tmp/msenv/bin/python"
    return default if os.path.exists(default) else None


class Worker:
    """Drives ``python script --worker data_path`` with environment ``env``."""

    def __init__(self, python: str, script: str, data_path: str, env: dict):
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [python, os.path.abspath(script), "--worker", data_path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, env=env,
        )
        self.hello = self.request({"cmd": "hello"})

    def request(self, msg: dict):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.log.seek(0)
            tail = self.log.read()[-2000:]
            raise RuntimeError(f"worker exited (rc={self.proc.wait()}):\n{tail}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"worker: {reply['error']}")
        return reply["result"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        self.log.close()


def reply_channel():
    """The pipe to the driver; afterwards stray prints (C-level included) go to stderr."""
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    return reply


def serve(reply, hello: dict, runs: dict, checks: dict) -> int:
    """Answer requests from stdin: ``runs[case]()`` gives seconds, ``checks[case]()`` a
    digest. An error is reported and serving goes on: the driver decides what to skip."""
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
