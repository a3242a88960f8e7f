"""``microspore ascend check script.py``: run a script on the CPU and report what of it
Ascend lacks — operators without an AI Core kernel, dtypes the AI Core has not (float64,
integer Cube operators), dynamic shapes, and the predicted device-memory peak against a
chip's HBM.

The script runs in a child process (``worker``) that records every operator call it
makes, eagerly and while its graphs are captured (GRAPH_MODE / jit compile through the
same calls); ``analyze`` turns the records into findings.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from ms_device_ascend.check.analyze import Finding, Report, analyze

__all__ = ["check_script", "Report", "Finding", "format_report"]


def check_script(script, args=(), *, chip: str = "910B", seconds: float = 120.0,
                 env=None) -> Report:
    """Run ``script`` for at most ``seconds`` (its operators recorded) and analyze it."""
    if not os.path.isfile(script):
        raise FileNotFoundError(f"ascend check: no script {script!r}")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "calls.jsonl")
        cmd = [sys.executable, "-m", "ms_device_ascend.check.worker", out, str(seconds),
               script, *args]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, env=env,
                                  timeout=seconds + 60)
            stderr = done.stderr
        except subprocess.TimeoutExpired as e:  # the run hung outside operators: killed
            stderr = f"killed after {seconds + 60:.0f} s ({e})"
        lines = open(out, encoding="utf-8").read().splitlines() if os.path.exists(out) \
            else []
        report = analyze(lines, chip)
        if not report.status:
            report.status = {"done": "crashed", "stderr": stderr[-2000:]}
        return report


def format_report(report: Report, script: str) -> str:
    """The report as text: what ran, the findings by level, the memory estimate."""
    lines = [f"microspore ascend check {script} (chip {report.chip}; CPU run, recorded "
             "operators — no Ascend hardware used)",
             f"  run: {report.status.get('done', '?')}"
             + (f" ({report.status['error']})" if "error" in report.status else ""),
             f"  operators: {len(report.ops)} kinds, {sum(report.ops.values())} distinct "
             "calls"]
    for level in ("error", "warning"):
        found = [f for f in report.findings if f.level == level]
        if found:
            lines.append(f"  {level}s ({len(found)}):")
            lines.extend(f"    [{f.op}] {f.site}: {f.message}" for f in found)
    infos: dict = {}  # the same note for many calls: once, with where it applies
    for f in report.findings:
        if f.level == "info":
            infos.setdefault(f.message, []).append(f"{f.op} at {f.site}")
    for message, where in infos.items():
        lines.append(f"  info: {message}\n    ({len(where)} calls: {', '.join(where[:4])}"
                     + (", ..." if len(where) > 4 else "") + ")")
    from ms_device_ascend.check.tables import CHIPS_GIB

    lines.append(f"  predicted device memory peak <= {_size(report.peak_bytes)} (Parameters "
                 f"and optimizer state {_size(report.param_bytes)} + one step's "
                 f"intermediates {_size(report.step_bytes)}, none reused) of "
                 f"{CHIPS_GIB[report.chip]} GiB HBM")
    result = "FAIL" if report.errors else "INCOMPLETE (the script did not run to its " \
        "end; fix it and check again)" if report.failed else "OK"
    lines.append(f"  result: {result} ({len(report.errors)} errors)")
    return "\n".join(lines)


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.2f} {unit}"
    return f"{n} B"
