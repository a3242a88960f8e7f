"""Strategy checkpoints: the chosen strategy per operator, as diffable JSON or protobuf.

MindSpore's ``strategy_ckpt_config(save_file=..., load_file=...)`` saves the strategies a
search found and loads them to pin a later run to them. As MindSpore's, a file whose name
ends in ``.json`` is JSON and any other (``strategy.ckpt``) MindSpore's protobuf
``ParallelStrategyMap`` (``strategy_proto``). The JSON has sorted keys and one operator per
block, so two plans diff line by line::

    {"device_num": 8, "format": "microspore-strategy/1", "operators": {
      "MatMul-0": {"dev_matrix": [1, 8], "in_strategy": [[1, 1], [1, 8]], "op": "MatMul"}}}

The protobuf keeps what MindSpore's message has: the operators' strategies and pipeline
stage and the Parameters' layouts (not the device count, search mode or whole shapes).
Files are written atomically (a temporary file, then a rename).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile

from ms_parallel.auto.strategy_proto import from_strategy_bytes, is_json, to_strategy_bytes

__all__ = ["save_strategy", "load_strategy", "read_strategy_file", "write_strategy_file",
           "FORMAT"]

FORMAT = "microspore-strategy/1"
# Checkpoint transforms walk every rank: a device count beyond any cluster is a damaged file.
MAX_DEVICES = 2**20


def save_strategy(path, device_num: int, operators: dict, search_mode: str = "",
                  parameters: dict | None = None) -> None:
    """Write ``operators`` (name -> {"op", "in_strategy", ...}) to ``path``, and the
    Parameters' layouts as MindSpore's ``parallel_layout_item`` (``strategy_file``)."""
    data = {"format": FORMAT, "device_num": int(device_num), "search_mode": search_mode,
            "operators": operators}
    if parameters is not None:
        data["parallel_layout_item"] = parameters
    write_strategy_file(path, data)


def write_strategy_file(path, data: dict) -> None:
    """``data`` (a JSON strategy file's dictionary) to ``path``: JSON or protobuf by its
    name, atomically."""
    if is_json(path):
        blob = (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()
    else:
        try:
            blob = to_strategy_bytes(data)
        except (KeyError, TypeError, ValueError) as e:  # e.g. a negative strategy
            raise ValueError(f"strategy file {path}: cannot be written as MindSpore's "
                             f"protobuf ({type(e).__name__}: {e})") from None
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".strategy-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_strategy_file(path) -> dict:
    """A strategy file's dictionary (JSON or protobuf by its name, as MindSpore decides);
    a ValueError naming the file if it is neither readable nor what its name says."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except FileNotFoundError:
        raise ValueError(f"no strategy file {path}") from None
    if not blob:
        raise ValueError(f"strategy file {path} is empty")
    if not is_json(path):
        return _stages(from_strategy_bytes(blob, path), path)
    try:
        data = json.loads(blob.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"strategy file {path}: not JSON ({e}; a name ending in .json means "
                         "JSON, any other protobuf)") from None
    if not isinstance(data, dict):
        raise ValueError(f"strategy file {path}: a JSON {type(data).__name__}, not an object")
    return _stages(data, path)


def _stages(data: dict, path) -> dict:
    """MindSpore's merged files (``merge_pipeline_strategys``) name stage ``s``'s Parameters
    ``"{s}-{name}"``: each gets its stage and world ranks (stage ``s`` of ``D`` devices:
    ``s*D .. s*D + D - 1``, MindSpore's numbering). This project's merged JSON names them."""
    items = data.get("parallel_layout_item")
    if not isinstance(items, dict):
        return data
    out = {}
    for name, item in items.items():
        merged = re.fullmatch(r"(\d+)-(.+)", name)
        if merged and isinstance(item, dict) and "stage_ranks" not in item:
            stage, name = int(merged.group(1)), merged.group(2)
            try:
                width = math.prod(int(d) for d in item["dev_matrix"])
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"strategy file {path}: Parameter {name!r} has no valid "
                                 "dev_matrix") from None
            if (stage + 1) * width > MAX_DEVICES:
                raise ValueError(f"strategy file {path}: Parameter {name!r} of pipeline stage "
                                 f"{stage} lies on ranks beyond {MAX_DEVICES} (a damaged file?)")
            item = {**item, "pipeline_stage": stage,
                    "stage_ranks": list(range(stage * width, (stage + 1) * width))}
            if name in out and out[name] != item:
                raise ValueError(f"strategy file {path}: Parameter {name!r} lies in several "
                                 "pipeline stages; shared Parameters are not read")
        out[name] = item
    return {**data, "parallel_layout_item": out}


def _device_num(data: dict):
    """The saved device count: JSON's ``device_num``, or a protobuf file's layouts'."""
    if "device_num" in data:
        return data["device_num"]
    counts = {math.prod(item["dev_matrix"]) for item in data["parallel_layout_item"].values()}
    return counts.pop() if len(counts) == 1 else None


def load_strategy(path, device_num: int | None = None) -> dict:
    """``name -> in_strategy`` from a strategy file, checked for format and device count."""
    data = read_strategy_file(path)
    if is_json(path) and data.get("format") != FORMAT:
        raise ValueError(f"strategy file {path}: expected format {FORMAT!r}, got "
                         f"{data.get('format')!r}")
    saved = _device_num(data)
    if device_num is not None and saved is not None and saved != device_num:
        raise ValueError(f"strategy file {path} was saved for {saved} devices; "
                         f"this run has {device_num}")
    out = {}
    for name, entry in data.get("operators", {}).items():
        try:
            out[name] = tuple(tuple(int(v) for v in s) for s in entry["in_strategy"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"strategy file {path}: operator {name!r} has no valid "
                             f"in_strategy (a list of lists of ints)") from None
    return out
