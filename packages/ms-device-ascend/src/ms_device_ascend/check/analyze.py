"""Turn the worker's records into findings: placement, dtypes, dynamic shapes, memory."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ms_device_ascend.check.tables import AICPU_OPS, CHIPS_GIB, CUBE_OPS, FLOAT64, INT64

__all__ = ["Finding", "Report", "analyze"]

ERROR, WARNING, INFO = "error", "warning", "info"
_INTS = ("int8", "int16", "int32", "int64", "uint8")


@dataclass
class Finding:
    level: str
    op: str
    site: str
    message: str


@dataclass
class Report:
    findings: list = field(default_factory=list)
    ops: dict = field(default_factory=dict)  # op name -> calls recorded (distinct)
    param_bytes: int = 0
    step_bytes: int = 0
    status: dict = field(default_factory=dict)
    chip: str = "910B"

    @property
    def peak_bytes(self) -> int:
        """An upper bound: Parameters and optimizer state plus one step's intermediates,
        none of them reused (MindSpore's memory reuse lowers the real peak)."""
        return self.param_bytes + self.step_bytes

    @property
    def failed(self) -> bool:
        """The script raised or crashed: the check saw only part of it."""
        return self.status.get("done") in ("error", "crashed")

    @property
    def errors(self) -> list:
        return [f for f in self.findings if f.level == ERROR]

    def to_json(self) -> dict:
        return {"chip": self.chip, "status": self.status, "ops": self.ops,
                "param_bytes": self.param_bytes, "step_bytes": self.step_bytes,
                "peak_bytes": self.peak_bytes, "hbm_bytes": CHIPS_GIB[self.chip] << 30,
                "findings": [f.__dict__ for f in self.findings]}


def analyze(lines, chip: str = "910B") -> Report:
    """``lines``: the worker's JSON lines."""
    if chip not in CHIPS_GIB:
        raise ValueError(f"ascend check: unknown chip {chip!r}; known: "
                         f"{', '.join(CHIPS_GIB)}")
    report = Report(chip=chip)
    shapes: dict = {}  # (op, call stack) -> (site, the input shapes it was called with)
    for line in lines:
        r = json.loads(line)
        if "param" in r:
            report.param_bytes += r["bytes"]
        elif "step_bytes" in r:
            report.step_bytes = max(report.step_bytes, r["step_bytes"])
        elif "done" in r:
            report.status = r
        elif "op" in r:
            report.ops[r["op"]] = report.ops.get(r["op"], 0) + 1
            _check_call(report, r)
            if not (r["grad"] or r["update"]):  # forward: one call stack, one shape
                shapes.setdefault((r["op"], r["stack"]), (r["site"], set()))[1].add(
                    json.dumps([s[0] if s else None for s in r["in"]]))
    for (op, _), (site, seen) in shapes.items():
        if len(seen) > 1:
            report.findings.append(Finding(
                WARNING, op, site, f"dynamic shape: called with {len(seen)} different input "
                f"shapes ({'; '.join(sorted(seen)[:3])}); Ascend compiles a graph per "
                "shape (or runs a slower dynamic-shape kernel): fix the shapes, e.g. "
                "batch(..., drop_remainder=True)"))
    _check_memory(report)
    unique: dict = {}  # one finding per (level, op, site, message), shapes aside
    for f in report.findings:
        unique.setdefault((f.level, f.op, f.site, f.message), f)
    report.findings = list(unique.values())
    return report


def _check_call(report: Report, r: dict) -> None:
    op, site = r["op"], r["site"]
    if r.get("branch"):  # seen in the compiled graph, not as it ran (``branches``)
        site += f" (inside a tensor-dependent if/while compiled in {r['branch']})"
    dtypes = {s[1] for s in r["in"] + r["out"] if s}
    add = report.findings.append
    if op in CUBE_OPS:
        if FLOAT64 in dtypes:
            add(Finding(ERROR, op, site, "float64 Cube operator: the AI Core's Cube unit has "
                        "no float64 (float16 in, float32 accumulate); cast inputs and "
                        "weights to float32 (or float16)"))
        elif INT64 in dtypes or (dtypes & set(_INTS) - {"int8"}):
            add(Finding(ERROR, op, site, f"integer Cube operator on {sorted(dtypes)}: the "
                        "Cube unit multiplies float16 and int8 only; cast to float32"))
        elif "float32" in dtypes:
            add(Finding(INFO, op, site, "float32 Cube operator: on Ascend it computes with "
                        "float16 operands under the default precision_mode; see the "
                        "effect with set_context(device_target='Ascend', ascend_config="
                        "{'precision_mode': ...}) (ms-device-ascend's emulation)"))
    elif FLOAT64 in dtypes:
        add(Finding(WARNING, op, site, "float64: the AI Core has no float64; this operator "
                    "falls back to an AI CPU kernel (slow) or fails if it has none; use "
                    "float32"))
    if op in AICPU_OPS:
        add(Finding(WARNING, op, site, "no AI Core kernel: runs on the AI CPU (slow, and "
                    "it breaks the graph's sink into the AI Core stream)"))


def _check_memory(report: Report) -> None:
    hbm = CHIPS_GIB[report.chip] << 30
    peak = report.peak_bytes
    if peak > hbm:
        report.findings.append(Finding(
            ERROR, "-", "-", f"predicted device memory {peak / 2**30:.2f} GiB exceeds the "
            f"{report.chip}'s {CHIPS_GIB[report.chip]} GiB HBM: lower the batch size, use "
            "recompute or model parallelism"))
    elif peak > 0.8 * hbm:
        report.findings.append(Finding(
            WARNING, "-", "-", f"predicted device memory {peak / 2**30:.2f} GiB is over 80% "
            f"of the {report.chip}'s {CHIPS_GIB[report.chip]} GiB HBM"))
