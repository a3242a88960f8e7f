"""What the dashboard serves, read from a summary base directory: the runs (any
directory with an event file, a lineage.json or an explanation), their lineage flattened
to table rows, and a run's explanation document."""

from __future__ import annotations

import json
import os

from ms_insight.lineage import LINEAGE_FILE, read_lineage
from ms_insight.lineage.table import flatten

__all__ = ["list_runs", "lineage_rows", "explanation", "run_path"]

EXPLAIN = os.path.join("explain", "explain.json")


def _is_run(root: str, files: list[str]) -> bool:
    return (LINEAGE_FILE in files or any(".tfevents." in f for f in files)
            or os.path.isfile(os.path.join(root, EXPLAIN)))


def list_runs(base: str) -> list[dict]:
    """``[{"name", "lineage", "explain", "event_files"}]`` for each run below ``base``."""
    runs = []
    for root, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "explain")
        if not _is_run(root, files):
            continue
        try:
            lineage = read_lineage(root)
        except ValueError as e:
            lineage = {"error": str(e)}
        runs.append({"name": os.path.relpath(root, base).replace(os.sep, "/"),
                     "lineage": lineage,
                     "explain": os.path.isfile(os.path.join(root, EXPLAIN)),
                     "event_files": sum(".tfevents." in f for f in files)})
    return sorted(runs, key=lambda r: r["name"])


def lineage_rows(base: str) -> dict:
    """``{"columns": [...], "rows": [{"run": name, field: value}]}`` of every run."""
    rows, columns = [], []
    for run in list_runs(base):
        flat = flatten(run["lineage"] or {})
        for k in flat:
            if k not in columns:
                columns.append(k)
        rows.append({"run": run["name"], **{k: _plain(v) for k, v in flat.items()}})
    return {"columns": columns, "rows": rows}


def _plain(v):
    return v if isinstance(v, (int, float, str, bool, type(None))) else json.dumps(v)


def run_path(base: str, name: str, *parts: str) -> str | None:
    """The path of ``parts`` in run ``name``, or None if it would leave ``base``."""
    root = os.path.realpath(base)
    path = os.path.realpath(os.path.join(root, name, *parts))
    return path if path == root or path.startswith(root + os.sep) else None


def explanation(base: str, name: str) -> dict | None:
    """Run ``name``'s explain.json, or None if it has none."""
    path = run_path(base, name, EXPLAIN)
    if path is None or not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)
