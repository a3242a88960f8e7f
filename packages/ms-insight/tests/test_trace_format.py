"""The profiler's Chrome trace checked against the Trace Event Format's rules (Perfetto
and chrome://tracing read this JSON; neither can be opened offline here): the keys every
event needs, complete events' durations, metadata events naming each process and
thread, and complete events of one thread nesting (Perfetto's importer drops or
misplaces slices that overlap without nesting)."""

import json
import math
import threading

import numpy as np
import pytest

from ms_insight import Profiler
from ms_tensor import GRAPH_MODE, PYNATIVE_MODE, Tensor, get_context, set_context

PHASES = set("BEXiICbnesStTfPONDMVvRc") | {"(", ")"}
METADATA = {"process_name": "name", "process_labels": "labels",
            "process_sort_index": "sort_index", "thread_name": "name",
            "thread_sort_index": "sort_index"}


def trace_format_errors(trace) -> list[str]:
    """What in ``trace`` (the JSON object format) breaks the Trace Event Format."""
    errors = []
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["the top level must be an object with a traceEvents list"]
    if trace.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        errors.append(f"displayTimeUnit {trace['displayTimeUnit']!r} is not 'ms' or 'ns'")
    try:
        json.dumps(trace, allow_nan=False)
    except ValueError as e:
        errors.append(f"not strict JSON: {e}")
    named_threads, named_processes, used, spans = set(), set(), set(), {}
    for i, e in enumerate(trace["traceEvents"]):
        where = f"event {i} ({e.get('name')!r})"
        for key, kinds in (("name", str), ("ph", str), ("pid", int), ("tid", int),
                           ("ts", (int, float))):
            if not isinstance(e.get(key), kinds) or isinstance(e.get(key), bool):
                errors.append(f"{where}: {key} missing or not {kinds}")
        if errors and errors[-1].startswith(where):
            continue
        if e["ph"] not in PHASES:
            errors.append(f"{where}: unknown phase {e['ph']!r}")
        if not math.isfinite(e["ts"]) or e["ts"] < 0:
            errors.append(f"{where}: ts {e['ts']} is not a finite time >= 0")
        if "args" in e and not isinstance(e["args"], dict):
            errors.append(f"{where}: args must be an object")
        if "cat" in e and not isinstance(e["cat"], str):
            errors.append(f"{where}: cat must be a string")
        if e["ph"] == "M":
            key = METADATA.get(e["name"])
            if key is None or key not in e.get("args", {}):
                errors.append(f"{where}: metadata needs one of {sorted(METADATA)} with "
                              f"args.{key}")
            elif e["name"] == "thread_name":
                named_threads.add((e["pid"], e["tid"]))
            elif e["name"] == "process_name":
                named_processes.add(e["pid"])
            continue
        used.add((e["pid"], e["tid"]))
        if e["ph"] == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or not math.isfinite(dur) or dur < 0:
                errors.append(f"{where}: a complete event needs dur >= 0, got {dur!r}")
            else:
                spans.setdefault((e["pid"], e["tid"]), []).append(
                    (e["ts"], e["ts"] + dur, e["name"]))
    errors += [f"thread {t} has events but no thread_name" for t in used - named_threads]
    errors += [f"process {p} has no process_name"
               for p in {p for p, _ in used} - named_processes]
    for track, slices in spans.items():
        open_ends = []  # the ends of the slices enclosing the current one
        for start, end, name in sorted(slices, key=lambda s: (s[0], -s[1])):
            while open_ends and open_ends[-1] <= start + 1e-3:
                open_ends.pop()
            if open_ends and end > open_ends[-1] + 1e-3:
                errors.append(f"thread {track}: {name!r} [{start}, {end}] overlaps the "
                              f"slice enclosing it without nesting (ends {open_ends[-1]})")
            open_ends.append(end)
    return errors


def test_the_validator_finds_each_kind_of_error():
    ok = {"name": "Add", "ph": "X", "ts": 1.0, "dur": 2.0, "pid": 1, "tid": 1}
    names = [{"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0,
              "args": {"name": "p"}},
             {"name": "thread_name", "ph": "M", "ts": 0, "pid": 1, "tid": 1,
              "args": {"name": "t"}}]
    assert trace_format_errors({"traceEvents": names + [ok]}) == []
    bad = [({**ok, "tid": None}, "tid missing"), ({**ok, "dur": -1}, "dur >= 0"),
           ({**ok, "ph": "Q"}, "unknown phase"), ({**ok, "ts": float("nan")}, "strict JSON"),
           ({**ok, "tid": 7}, "no thread_name"),
           ({**ok, "ts": 2.0, "dur": 5.0}, "without nesting")]
    for event, message in bad:
        errors = trace_format_errors({"traceEvents": names + [ok, event]})
        assert any(message in m for m in errors), (message, errors)
    assert "no process_name" in trace_format_errors({"traceEvents": names[1:] + [ok]})[0]


@pytest.mark.parametrize("mode", [PYNATIVE_MODE, GRAPH_MODE], ids=["pynative", "graph"])
def test_profiles_of_lenet_are_valid_traces(tmp_path, mode, lenet):
    previous = get_context("mode")
    set_context(mode=mode)
    try:
        net = lenet.LeNet5()
        x = lenet.batches(1)[0][0]
        net(x)
        profiler = Profiler(output_path=tmp_path)
        for _ in range(2):
            net(x)
            profiler.step()
        worker = threading.Thread(target=lambda: Tensor(np.ones(2)) * Tensor(np.ones(2)))
        worker.start()
        worker.join()
        profiler.analyse()
    finally:
        set_context(mode=previous)
    trace = json.loads((tmp_path / "profiler" / "trace.json").read_text())
    assert trace_format_errors(trace) == []
    tracks = {e["tid"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert tracks == {0, 1, 2}  # steps, main thread, the worker
