"""``set_context`` / ``get_context``: the process-wide execution settings.

Every key either takes effect or is refused with an error that names it; none is stored
and ignored. What each does here (MindSpore's meaning, on microspore's CPU runtime):

- ``mode``: PyNative or graph mode for Cells (``ms_nn.Cell``).
- ``device_target`` / ``device_id``: a registered backend and one of its devices (the
  CPU backend has one device, id 0).
- ``runtime_num_threads``: the threads of every CPU kernel family and of MKL
  (``ms_ops.kernels.threads``); ``None`` or ``0``: ``OMP_NUM_THREADS`` if exported, else
  the CPUs this process may use.
- ``deterministic``: ``"ON"`` or ``"OFF"``. microspore's CPU kernels give the same bits on
  every run with the same thread count in both (static OpenMP schedules; MKL in its
  strict conditional-numerical-reproducibility mode), so ``"ON"`` is always honoured.
- ``pynative_synchronize``: PyNative operators already run synchronously on the CPU.
- ``enable_graph_kernel`` / ``jit_config={"jit_level": ...}``: whether graph mode fuses
  elementwise chains into one kernel (ms-graph's ``fuse_elementwise``); on by default
  here, as microspore's graph mode always fused; ``False`` or ``"O0"`` turn it off.
- ``check_bprop``: a custom ``bprop``'s gradients must match its inputs' shapes and dtypes.
- ``max_call_depth``: how deep graph capture may follow nested calls. Capture runs in
  Python, so a value above Python's recursion limit raises that limit to it (as
  MindSpore's ``set_recursion_limit`` does); a smaller one leaves it as it is.
- ``save_graphs`` / ``save_graphs_path``: write each compiled graph's stages to files.
- ``max_device_memory``: only for backends with their own memory; the CPU has none.
- ``jit_syntax_level``: ``LAX`` (2) only, the level ms-graph compiles at (any Python its
  capture can run, on Python values too); MindSpore's narrower ``STRICT`` (0) and
  ``COMPATIBLE`` (1) are refused by name rather than stored and ignored.
- ``ascend_config``: a dict of MindSpore's Ascend options; ``precision_mode`` (one of
  ``ASCEND_PRECISION_MODES``) is read by the Ascend backend (ms-device-ascend's numerics
  emulation); other keys are refused by name.
"""

from __future__ import annotations

import os
import re
import sys

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "context",
           "on_change"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_DEFAULTS = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "save_graphs": False,
    "save_graphs_path": ".",
    "deterministic": "OFF",
    "max_call_depth": 1000,
    "pynative_synchronize": False,
    "enable_graph_kernel": True,
    "jit_config": None,
    "max_device_memory": None,
    "runtime_num_threads": None,
    "check_bprop": False,
    "ascend_config": None,
    "jit_syntax_level": 2,
}
_settings = dict(_DEFAULTS)
_watchers: dict[str, list] = {}


def _check_mode(v, _):
    if v not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError("set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), "
                         f"got {v!r}")


def _backend(name):
    from ms_tensor import registry

    reg = registry.load()
    known = reg.names("backend")
    if name not in known:
        raise ValueError(f"set_context: device_target {name!r} is not available; registered "
                         f"backends: {', '.join(known)} (device plugins add others)")
    return reg.lookup("backend", name)


def _check_device_target(v, _):
    _backend(v)


def _check_device_id(v, new):
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError(f"set_context: device_id must be a non-negative int, got {v!r}")
    target = new["device_target"]
    count = _device_count(target)
    if v >= count:
        raise ValueError(f"set_context: device_id {v} does not exist: device_target "
                         f"{target!r} has {count} device{'s' if count > 1 else ''} "
                         f"(ids 0-{count - 1})")


def _device_count(target) -> int:
    if target == "CPU":
        return 1
    backend = _backend(target)
    count = getattr(backend, "device_count", None)
    return count() if callable(count) else sys.maxsize


def _check_bool(key):
    def check(v, _):
        if not isinstance(v, bool):
            raise ValueError(f"set_context: {key} must be True or False, got {v!r}")
    return check


def _check_save_graphs(v, _):
    if not (isinstance(v, bool) or (isinstance(v, int) and 0 <= v <= 3)):
        raise ValueError(f"set_context: save_graphs must be a bool or 0-3, got {v!r}")


def _check_path(v, _):
    if not isinstance(v, (str, os.PathLike)):
        raise ValueError(f"set_context: save_graphs_path must be a path, got {v!r}")


def _check_deterministic(v, _):
    if v not in ("ON", "OFF"):
        raise ValueError(f"set_context: deterministic must be 'ON' or 'OFF', got {v!r}")


def _check_call_depth(v, _):
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise ValueError(f"set_context: max_call_depth must be a positive int, got {v!r}")


def _check_threads(v, _):
    if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
        raise ValueError(f"set_context: runtime_num_threads must be an int >= 0 (0 or None: "
                         f"automatic), got {v!r}")


JIT_LEVELS = ("O0", "O1")


def _check_jit_config(v, _):
    if v is None:
        return
    if not isinstance(v, dict):
        raise ValueError(f"set_context: jit_config must be a dict, got {v!r}")
    for key, value in v.items():
        if key == "jit_level":
            if value not in JIT_LEVELS:
                raise ValueError(f"set_context: jit_config jit_level must be one of "
                                 f"{JIT_LEVELS} on the CPU ('O2' sinks whole graphs to "
                                 f"Ascend), got {value!r}")
        elif key == "infer_boost":
            if value != "off":
                raise ValueError("set_context: jit_config infer_boost='on' needs Ascend; "
                                 "the CPU supports 'off' only")
        else:
            raise ValueError(f"set_context: jit_config key {key!r} is not supported; "
                             f"supported: jit_level, infer_boost")


ASCEND_PRECISION_MODES = ("force_fp16", "allow_fp32_to_fp16", "allow_mix_precision",
                          "must_keep_origin_dtype", "force_fp32")


def _check_ascend_config(v, _):
    if v is None:
        return
    if not isinstance(v, dict):
        raise ValueError(f"set_context: ascend_config must be a dict, got {v!r}")
    for key, value in v.items():
        if key != "precision_mode":
            raise ValueError(f"set_context: ascend_config key {key!r} is not supported; "
                             "supported: precision_mode")
        if value not in ASCEND_PRECISION_MODES:
            raise ValueError(f"set_context: ascend_config precision_mode must be one of "
                             f"{', '.join(ASCEND_PRECISION_MODES)}, got {value!r}")


_MEMORY = re.compile(r"^\d+(\.\d+)?(GB|MB)$")


def _check_device_memory(v, new):
    if v is None:
        return
    if not isinstance(v, str) or not _MEMORY.match(v):
        raise ValueError(f"set_context: max_device_memory must look like '3.5GB' or "
                         f"'512MB', got {v!r}")
    if new["device_target"] == "CPU":
        raise ValueError("set_context: max_device_memory limits a device's own memory "
                         "(GPU, Ascend); device_target 'CPU' has none")


def _check_syntax_level(v, _):
    if v != 2:
        raise ValueError(f"set_context: jit_syntax_level {v!r} is not supported; ms-graph "
                         "compiles at LAX (2), MindSpore's superset of STRICT (0) and "
                         "COMPATIBLE (1), and has no narrower mode")


_CHECKS = {
    "mode": _check_mode, "device_target": _check_device_target,
    "device_id": _check_device_id, "save_graphs": _check_save_graphs,
    "save_graphs_path": _check_path, "deterministic": _check_deterministic,
    "max_call_depth": _check_call_depth, "pynative_synchronize": _check_bool(
        "pynative_synchronize"), "enable_graph_kernel": _check_bool("enable_graph_kernel"),
    "jit_config": _check_jit_config, "max_device_memory": _check_device_memory,
    "runtime_num_threads": _check_threads, "check_bprop": _check_bool("check_bprop"),
    "ascend_config": _check_ascend_config, "jit_syntax_level": _check_syntax_level,
}


def set_context(**kwargs) -> None:
    """Set execution settings, e.g. ``set_context(mode=GRAPH_MODE, device_target="CPU")``.

    A value that cannot be honoured raises ValueError naming the key; nothing is changed
    then. See the module docstring for what each key does.
    """
    for key in kwargs:
        if key not in _settings:
            raise ValueError(f"set_context: unknown setting {key!r}; known settings: "
                             f"{', '.join(sorted(_settings))}")
    new = {**_settings, **kwargs}
    for key in kwargs:
        _CHECKS[key](kwargs[key], new)
    if "device_target" in kwargs and "device_id" not in kwargs:
        _check_device_id(new["device_id"], new)
    changed = [k for k in kwargs if _settings[k] != kwargs[k]]
    _settings.update(kwargs)
    if kwargs.get("max_call_depth", 0) > sys.getrecursionlimit():
        sys.setrecursionlimit(kwargs["max_call_depth"])  # asked for: capture runs under it
    for key in changed:
        for fn in _watchers.get(key, ()):
            fn(kwargs[key])


def on_change(key: str, fn) -> None:
    """Call ``fn(new_value)`` whenever ``set_context`` (or ``reset_context``) changes
    ``key``: how a lower-level runtime (ms-ops' thread pools) follows a setting."""
    if key not in _DEFAULTS:
        raise ValueError(f"on_change: unknown setting {key!r}")
    _watchers.setdefault(key, []).append(fn)


def get_context(attr_key: str):
    """The value of one setting (``get_context("mode")``)."""
    try:
        return _settings[attr_key]
    except KeyError:
        raise ValueError(f"get_context: unknown setting {attr_key!r}; known settings: "
                         f"{', '.join(sorted(_settings))}") from None


def reset_context() -> None:
    """Every setting back to its default."""
    changed = [k for k in _DEFAULTS if _settings[k] != _DEFAULTS[k]]
    _settings.clear()
    _settings.update(_DEFAULTS)
    for key in changed:
        for fn in _watchers.get(key, ()):
            fn(_DEFAULTS[key])


class _ContextModule:
    """``ms.context``-style access: ``context.set_context(...)``, ``context.GRAPH_MODE``."""

    GRAPH_MODE = GRAPH_MODE
    PYNATIVE_MODE = PYNATIVE_MODE
    set_context = staticmethod(set_context)
    get_context = staticmethod(get_context)
    reset_context = staticmethod(reset_context)


context = _ContextModule()
