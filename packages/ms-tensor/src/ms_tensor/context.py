"""``set_context`` / ``get_context``: the process-wide execution settings."""

from __future__ import annotations

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "context"]

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
    "enable_graph_kernel": False,
    "jit_config": None,
    "max_device_memory": None,
    "runtime_num_threads": None,
    "check_bprop": False,
}
_settings = dict(_DEFAULTS)


def _check_mode(v):
    if v not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError("set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), "
                         f"got {v!r}")


def _check_device_target(v):
    from ms_tensor import registry

    known = registry.load().names("backend")
    if v not in known:
        raise ValueError(f"set_context: device_target {v!r} is not available; registered "
                         f"backends: {', '.join(known)} (device plugins add others)")


def _check_device_id(v):
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError(f"set_context: device_id must be a non-negative int, got {v!r}")


_CHECKS = {"mode": _check_mode, "device_target": _check_device_target,
           "device_id": _check_device_id}


def set_context(**kwargs) -> None:
    """Set execution settings, e.g. ``set_context(mode=GRAPH_MODE, device_target="CPU")``."""
    for key, value in kwargs.items():
        if key not in _settings:
            raise ValueError(f"set_context: unknown setting {key!r}; known settings: "
                             f"{', '.join(sorted(_settings))}")
        check = _CHECKS.get(key)
        if check is not None:
            check(value)
    _settings.update(kwargs)


def get_context(attr_key: str):
    """The value of one setting (``get_context("mode")``)."""
    try:
        return _settings[attr_key]
    except KeyError:
        raise ValueError(f"get_context: unknown setting {attr_key!r}; known settings: "
                         f"{', '.join(sorted(_settings))}") from None


def reset_context() -> None:
    _settings.clear()
    _settings.update(_DEFAULTS)


class _ContextModule:
    """``ms.context``-style access: ``context.set_context(...)``, ``context.GRAPH_MODE``."""

    GRAPH_MODE = GRAPH_MODE
    PYNATIVE_MODE = PYNATIVE_MODE
    set_context = staticmethod(set_context)
    get_context = staticmethod(get_context)
    reset_context = staticmethod(reset_context)


context = _ContextModule()
