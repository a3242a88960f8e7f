"""The auto-parallel context: ``set_auto_parallel_context``, ``get_auto_parallel_context``,
``reset_auto_parallel_context`` and ``ParallelMode``, with MindSpore's keys and defaults.

Process-wide settings, as in MindSpore. ms-nn never imports this module: it asks the
registry for the gradient reducer (``ms_parallel.data_parallel``), which reads
``parallel_mode`` here.

>>> from ms_parallel.context import (get_auto_parallel_context, reset_auto_parallel_context,
...                                  set_auto_parallel_context)
>>> set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
>>> get_auto_parallel_context("parallel_mode"), get_auto_parallel_context("gradients_mean")
('data_parallel', True)
>>> reset_auto_parallel_context()
"""

from __future__ import annotations

import copy
import threading

__all__ = ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context", "DEFAULTS"]


class ParallelMode:
    """How a network is spread over the ranks."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL,
                 AUTO_PARALLEL]


_COMM_FUSION = {"openstate": True, "allreduce": {"mode": "auto", "config": None},
                "allgather": {"mode": "auto", "config": None},
                "reducescatter": {"mode": "auto", "config": None}}

DEFAULTS = {
    "parallel_mode": ParallelMode.STAND_ALONE, "device_num": 1, "global_rank": 0,
    "gradients_mean": False, "gradient_fp32_sync": True, "loss_repeated_mean": True,
    "parameter_broadcast": False, "full_batch": False,
    "search_mode": "recursive_programming", "strategy_ckpt_load_file": "",
    "strategy_ckpt_save_file": "", "strategy_ckpt_config": {},
    "enable_parallel_optimizer": False, "parallel_optimizer_config": {},
    "all_reduce_fusion_config": [], "comm_fusion": _COMM_FUSION, "pipeline_stages": 1,
    "pipeline_config": {}, "grad_accumulation_step": 1, "dataset_strategy": "data_parallel",
    "enable_alltoall": False, "group_ckpt_save_file": "", "auto_pipeline": False,
}
_ALIASES = {"auto_parallel_search_mode": "search_mode"}
_SEARCH_MODES = ("recursive_programming", "dynamic_programming", "sharding_propagation")

_lock = threading.Lock()
_settings = copy.deepcopy(DEFAULTS)


def _check(key, value):
    def bad(expected):
        raise ValueError(f"set_auto_parallel_context: {key} must be {expected}, got {value!r}")

    if key == "parallel_mode" and value not in ParallelMode.MODE_LIST:
        bad(f"one of {', '.join(ParallelMode.MODE_LIST)}")
    if key in ("device_num", "pipeline_stages", "grad_accumulation_step") and \
            (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        bad("a positive int")
    if key == "global_rank" and (not isinstance(value, int) or value < 0):
        bad("a non-negative int")
    if key in ("gradients_mean", "gradient_fp32_sync", "loss_repeated_mean",
               "parameter_broadcast", "full_batch", "enable_parallel_optimizer",
               "enable_alltoall", "auto_pipeline") and not isinstance(value, bool):
        bad("a bool")
    if key == "search_mode" and value not in _SEARCH_MODES:
        bad(f"one of {', '.join(_SEARCH_MODES)}")
    if key == "all_reduce_fusion_config" and (
            not isinstance(value, (list, tuple)) or
            any(not isinstance(i, int) or i < 1 for i in value) or list(value) != sorted(value)):
        bad("an increasing list of positive parameter indices")
    if key == "comm_fusion":
        _check_comm_fusion(value, bad)
    return value


def _check_comm_fusion(value, bad):
    if not isinstance(value, dict):
        bad("a dict such as {'allreduce': {'mode': 'size', 'config': 32}}")
    for name, spec in value.items():
        if name == "openstate":
            if not isinstance(spec, bool):
                bad("a dict whose 'openstate' is a bool")
            continue
        if name not in ("allreduce", "allgather", "reducescatter") or not isinstance(spec, dict):
            bad("a dict with keys 'openstate', 'allreduce', 'allgather', 'reducescatter'")
        mode, config = spec.get("mode", "auto"), spec.get("config")
        if mode not in ("auto", "size", "index"):
            bad(f"a dict whose {name!r} mode is 'auto', 'size' or 'index'")
        if mode == "size" and (not isinstance(config, (int, float)) or config <= 0):
            bad(f"a dict whose {name!r} config is a size in MB (> 0) for mode 'size'")
        if mode == "index" and not isinstance(config, (list, tuple)):
            bad(f"a dict whose {name!r} config is a list of indices for mode 'index'")


def set_auto_parallel_context(**kwargs) -> None:
    """Set auto-parallel options (MindSpore's names). Unknown names and bad values raise
    ValueError before anything changes."""
    checked = {}
    for key, value in kwargs.items():
        key = _ALIASES.get(key, key)
        if key not in DEFAULTS:
            raise ValueError(f"set_auto_parallel_context: unknown option {key!r}; options: "
                             f"{', '.join(sorted(DEFAULTS))}")
        checked[key] = _check(key, value)
    with _lock:
        if "comm_fusion" in checked:
            merged = copy.deepcopy(_settings["comm_fusion"])
            merged.update(copy.deepcopy(checked["comm_fusion"]))
            checked["comm_fusion"] = merged
        _settings.update(checked)


def get_auto_parallel_context(attr_key: str):
    """The value of one option."""
    key = _ALIASES.get(attr_key, attr_key)
    if key not in DEFAULTS:
        raise ValueError(f"get_auto_parallel_context: unknown option {attr_key!r}")
    return copy.deepcopy(_settings[key])


def reset_auto_parallel_context() -> None:
    """Every option back to its default."""
    with _lock:
        _settings.clear()
        _settings.update(copy.deepcopy(DEFAULTS))
