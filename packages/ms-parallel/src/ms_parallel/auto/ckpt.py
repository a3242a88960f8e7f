"""Strategy checkpoints: the chosen strategy per operator as diffable JSON.

MindSpore's ``strategy_ckpt_config(save_file=..., load_file=...)`` saves the strategies a
search found and loads them to pin a later run to them. The file here is JSON with sorted
keys and one operator per block, so two plans diff line by line::

    {"device_num": 8, "format": "microspore-strategy/1", "operators": {
      "MatMul-0": {"dev_matrix": [1, 8], "in_strategy": [[1, 1], [1, 8]], "op": "MatMul"}}}

The file is written atomically (a temporary file, then a rename).
"""

from __future__ import annotations

import json
import os
import tempfile

__all__ = ["save_strategy", "load_strategy", "FORMAT"]

FORMAT = "microspore-strategy/1"


def save_strategy(path, device_num: int, operators: dict, search_mode: str = "",
                  parameters: dict | None = None) -> None:
    """Write ``operators`` (name -> {"op", "in_strategy", ...}) to ``path``, and the
    Parameters' layouts as MindSpore's ``parallel_layout_item`` (``strategy_file``)."""
    data = {"format": FORMAT, "device_num": int(device_num), "search_mode": search_mode,
            "operators": operators}
    if parameters is not None:
        data["parallel_layout_item"] = parameters
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".strategy-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_strategy(path, device_num: int | None = None) -> dict:
    """``name -> in_strategy`` from a strategy file, checked for format and device count."""
    try:
        with open(path) as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError(f"strategy file {path}: not JSON ({e})") from None
    found = data.get("format") if isinstance(data, dict) else type(data).__name__
    if found != FORMAT:
        raise ValueError(f"strategy file {path}: expected format {FORMAT!r}, got {found!r}")
    if device_num is not None and data.get("device_num") != device_num:
        raise ValueError(f"strategy file {path} was saved for {data.get('device_num')} devices; "
                         f"this run has {device_num}")
    out = {}
    for name, entry in data.get("operators", {}).items():
        try:
            out[name] = tuple(tuple(int(v) for v in s) for s in entry["in_strategy"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"strategy file {path}: operator {name!r} has no valid "
                             f"in_strategy (a list of lists of ints)") from None
    return out
