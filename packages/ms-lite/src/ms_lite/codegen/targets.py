"""Build a generated project for a target with its Makefile and run its programs there:
natively on x86-64, under qemu-user on ARM64/ARM32 Linux (static binaries), under
qemu-system-arm on an MPS2 Cortex-M board (semihosting carries the output)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["TOOLS", "missing_tools", "build", "run_program", "parse_golden", "RunResult",
           "CORTEX_M_BOARD"]

CORTEX_M_BOARD = ("mps2-an385", "cortex-m3")

# What each target needs on PATH: the compiler and how its programs run.
TOOLS = {
    "x86": ("gcc", "make"),
    "ARM64": ("aarch64-linux-gnu-gcc", "qemu-aarch64", "make"),
    "ARM32": ("arm-linux-gnueabihf-gcc", "qemu-arm", "make"),
    "Cortex-M": ("arm-none-eabi-gcc", "qemu-system-arm", "make"),
}


def missing_tools(target: str) -> list[str]:
    """The tools of ``target`` that are not installed (empty when it can be tested)."""
    return [t for t in TOOLS[target] if shutil.which(t) is None]


@dataclass
class RunResult:
    stdout: str
    returncode: int


def build(project_path, target: str, *, timeout: float = 300, jobs: int = 2,
          extra: tuple = ()) -> Path:
    """``make TARGET=...`` in the project; raises RuntimeError with the compiler's output."""
    path = Path(project_path)
    if missing_tools(target):
        raise RuntimeError(f"cannot build for {target}: {', '.join(missing_tools(target))} "
                           "not installed (tools/system_deps.py installs them)")
    cmd = ["make", "-C", str(path), f"-j{jobs}", f"TARGET={target}", *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        raise RuntimeError(f"building {path} for {target} failed ({' '.join(cmd)}):\n"
                           f"{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    return path / "build"


def _command(program: Path, target: str, args) -> list[str]:
    if target == "x86":
        return [str(program), *args]
    if target == "ARM64":
        return ["qemu-aarch64", str(program), *args]
    if target == "ARM32":
        return ["qemu-arm", str(program), *args]
    board, _ = CORTEX_M_BOARD
    return ["qemu-system-arm", "-M", board, "-nographic", "-monitor", "none",
            "-serial", "none", "-icount", "shift=0",
            "-semihosting-config", "enable=on,target=native", "-kernel", str(program)]


def run_program(project_path, target: str, name: str = "golden", args=(), *,
                timeout: float = 120) -> RunResult:
    """Run ``build/<name>`` for ``target``; a hang ends at ``timeout`` with an error."""
    program = Path(project_path) / "build" / name
    cmd = _command(program, target, [str(a) for a in args])
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"{' '.join(cmd)} did not finish in {timeout} s") from e
    return RunResult(r.stdout + r.stderr, r.returncode)


def parse_golden(stdout: str, outputs) -> tuple[list[np.ndarray], bool]:
    """The outputs the golden program printed (float32 bit patterns, integers) and
    whether it reported PASS."""
    got = {}
    for line in stdout.splitlines():
        if line.startswith("out") and " " in line:
            head, n, *vals = line.split()
            got[int(head[3:])] = (int(n), vals)
    arrays = []
    for i, v in enumerate(outputs):
        if i not in got:
            raise RuntimeError(f"the golden program printed no output {i} ({v.name}):\n"
                               f"{stdout[-2000:]}")
        n, vals = got[i]
        if v.dtype == "float32":
            a = np.array([int(x, 16) for x in vals], np.uint32).view(np.float32)
        else:
            a = np.array([int(x) for x in vals], v.dtype)
        arrays.append(a.reshape(v.shape))
    return arrays, "golden: PASS" in stdout
