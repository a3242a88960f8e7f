"""Reading and writing ``lineage.json`` (atomically: a reader never sees half a file)."""

from __future__ import annotations

import json
import os
import tempfile
import threading

__all__ = ["LINEAGE_FILE", "update_lineage", "read_lineage", "load_runs"]

LINEAGE_FILE = "lineage.json"
_lock = threading.Lock()


def _plain(value):
    """``value`` with numpy scalars/arrays and Tensors made JSON values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def _merge(old: dict, new: dict) -> dict:
    out = dict(old)
    for k, v in new.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) \
            else v
    return out


def update_lineage(run_dir, fields: dict) -> dict:
    """Merge ``fields`` (nested dicts merge key by key) into ``run_dir``'s lineage.json;
    returns the whole record."""
    path = os.path.join(os.fspath(run_dir), LINEAGE_FILE)
    with _lock:
        record = _merge(read_lineage(run_dir) or {}, _plain(fields))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".lineage.", dir=os.path.dirname(path))
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(record, f, indent=1, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    return record


def read_lineage(run_dir) -> dict | None:
    """``run_dir``'s lineage record, or None if it has none.

    Raises:
        ValueError: the file is not a JSON object (the message names the file).
    """
    path = os.path.join(os.fspath(run_dir), LINEAGE_FILE)
    try:
        with open(path) as f:
            record = json.load(f)
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not a lineage file: {e}") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not a lineage file: a JSON object was expected")
    return record


def load_runs(base_dir) -> dict[str, dict]:
    """Every run with a lineage.json at or below ``base_dir``: ``{relative path: record}``,
    sorted by path (``"."`` for ``base_dir`` itself)."""
    base = os.fspath(base_dir)
    if not os.path.isdir(base):
        raise FileNotFoundError(f"lineage: {base!r} is not a directory")
    runs = {}
    for root, dirs, files in os.walk(base):
        dirs.sort()
        if LINEAGE_FILE in files:
            runs[os.path.relpath(root, base)] = read_lineage(root)
    return dict(sorted(runs.items()))
