"""MindSpore's strategy-search settings: ``set_algo_parameters``, ``get_algo_parameters``,
``reset_algo_parameters``, with MindSpore 2.10's names, types, checks and defaults.

``fully_use_devices`` reaches the search: when True, every operator's strategy must use all
devices (``plan_from_context`` passes it to the cost model's candidates). The other settings
tune parts of MindSpore's search that this one does not have (approximate dynamic
programming, following elementwise strategies, slice alignment): they keep their defaults,
and setting one to another value raises instead of being ignored.

>>> set_algo_parameters(fully_use_devices=True)
>>> get_algo_parameters("fully_use_devices")
True
>>> reset_algo_parameters()
"""

from __future__ import annotations

import threading

__all__ = ["set_algo_parameters", "get_algo_parameters", "reset_algo_parameters"]

DEFAULTS = {"fully_use_devices": False, "elementwise_op_strategy_follow": False,
            "enable_algo_approxi": False, "algo_approxi_epsilon": 0.1,
            "tensor_slice_align_enable": False, "tensor_slice_align_size": 16}
HONOURED = frozenset({"fully_use_devices"})

_lock = threading.Lock()
_values = dict(DEFAULTS)


def _check(key, value):
    if key not in DEFAULTS:
        raise ValueError(f"Set context keyword {key} is not recognized!")
    kind = type(DEFAULTS[key])
    if type(value) is not kind:
        raise TypeError(f"The parameter '{key}' must be {kind}, but got {type(value)}")
    if key == "tensor_slice_align_size" and not 1 <= value <= 1024:
        raise ValueError(f"Align_size must be in [1, 1024], but got {value}")
    if key == "algo_approxi_epsilon" and not value > 0:
        raise ValueError(f"algo_approxi_epsilon must be > 0, but got {value}")
    if key not in HONOURED and value != DEFAULTS[key]:
        raise ValueError(f"set_algo_parameters: {key}={value!r} is not supported: microspore's "
                         f"strategy search has no such option (only "
                         f"{', '.join(sorted(HONOURED))} changes the search)")


def set_algo_parameters(**kwargs) -> None:
    """Set search settings by name (all checked before any changes)."""
    for key, value in kwargs.items():
        _check(key, value)
    with _lock:
        _values.update(kwargs)


def get_algo_parameters(attr_key: str):
    """One search setting's value."""
    if attr_key not in DEFAULTS:
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    with _lock:
        return _values[attr_key]


def reset_algo_parameters() -> None:
    """Every search setting back to its default."""
    with _lock:
        _values.clear()
        _values.update(DEFAULTS)
