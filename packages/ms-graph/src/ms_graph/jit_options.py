"""MindSpore's ``jit`` options: each one takes effect here or is refused by name.

========================  ================================================================
option                    on microspore
========================  ================================================================
``capture_mode``          ``"ast"`` (default) or ``"trace"``; ``"bytecode"`` is refused.
``jit_level``             ``"O1"`` fuses elementwise chains into one kernel (ms-graph's
                          ``fuse_elementwise`` pass), ``"O0"`` does not; unset (None), the
                          context decides (``set_context(jit_config={"jit_level": ...})``,
                          else ``enable_graph_kernel``, on by default).
``dynamic``               ``0``: one graph per input shape, which is what ms-graph compiles;
                          ``1`` (one graph for every shape) is refused.
``fullgraph``             ``True`` or ``False``: either way a construct that cannot be
                          captured raises an error with file:line (never a silent fallback).
``backend``               ``""`` or ``"ms_backend"``; ``"GE"`` (Ascend) is refused.
``jit_config``            a dict (or MindSpore's ``JitConfig`` attributes) with
                          ``jit_level`` as above; other non-default keys are refused.
``mode``                  MindSpore 2.0-2.4: ``"PSJit"`` is ``capture_mode="ast"``;
                          ``"PIJit"`` (bytecode) is refused.
``input_signature``       Tensors whose shapes and dtypes every call must match (checked
                          before the call); a ``None`` dimension (dynamic) is refused.
``hash_args``,            refused: ms-graph keys its graphs on the arguments and on the
``compile_once=True``     Cell's state, not on extra objects.
other ``**options``       refused, naming the option.
========================  ================================================================
"""

from __future__ import annotations

import functools

from ms_tensor.context import get_context

__all__ = ["JitOptions", "parse", "fuses", "with_signature", "check_signature"]

CAPTURE_MODES = ("ast", "trace")
JIT_LEVELS = ("O0", "O1")
BACKENDS = ("", "ms_backend")
_LEGACY_MODES = {"PSJit": "ast"}
_JIT_CONFIG_DEFAULTS = {"jit_level": None, "exc_mode": "auto", "jit_syntax_level": "",
                        "debug_level": "RELEASE", "infer_boost": "off"}


class JitOptions:
    """The options of one compiled function, checked."""

    __slots__ = ("capture_mode", "jit_level", "input_signature")

    def __init__(self, capture_mode="ast", jit_level=None, input_signature=None):
        self.capture_mode = capture_mode
        self.jit_level = jit_level
        self.input_signature = input_signature


def _refuse(name, value, why):
    raise ValueError(f"jit: {name}={value!r} is not supported: {why}")


def _jit_config_level(jit_config):
    if jit_config is None:
        return None
    items = jit_config if isinstance(jit_config, dict) else {
        k: getattr(jit_config, k) for k in _JIT_CONFIG_DEFAULTS if hasattr(jit_config, k)}
    for key, value in items.items():
        if key not in _JIT_CONFIG_DEFAULTS:
            _refuse(f"jit_config[{key!r}]", value, "supported keys: "
                    + ", ".join(_JIT_CONFIG_DEFAULTS))
        if key != "jit_level" and value != _JIT_CONFIG_DEFAULTS[key]:
            _refuse(f"jit_config[{key!r}]", value, f"only the default "
                    f"{_JIT_CONFIG_DEFAULTS[key]!r} on microspore's CPU backend")
    return items.get("jit_level")


def parse(capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False, backend="",
          *, mode=None, input_signature=None, hash_args=None, jit_config=None,
          compile_once=False, **options) -> JitOptions:
    """Check MindSpore's ``jit`` keywords; a ValueError names any that cannot be honoured."""
    if mode is not None:
        if mode not in _LEGACY_MODES:
            _refuse("mode", mode, "'PSJit' (AST capture) only; 'PIJit' captures bytecode")
        capture_mode = _LEGACY_MODES[mode]
    if capture_mode not in CAPTURE_MODES:
        _refuse("capture_mode", capture_mode, f"supported: {', '.join(CAPTURE_MODES)}")
    level = _jit_config_level(jit_config) if jit_level is None else jit_level
    if level is not None and level not in JIT_LEVELS:
        _refuse("jit_level", level, f"supported: {', '.join(JIT_LEVELS)} ('O2' sinks whole "
                "graphs to Ascend)")
    if dynamic not in (0, False):
        _refuse("dynamic", dynamic, "ms-graph compiles one graph per input shape (dynamic=0)")
    if not isinstance(fullgraph, bool):
        _refuse("fullgraph", fullgraph, "it must be True or False")
    if backend not in BACKENDS:
        _refuse("backend", backend, "supported: '' or 'ms_backend' ('GE' is Ascend's)")
    if hash_args is not None:
        _refuse("hash_args", hash_args, "graphs are keyed on the arguments and the Cell's "
                "state, not on extra objects")
    if compile_once:
        _refuse("compile_once", compile_once, "each jit object keeps its own graphs")
    for name, value in options.items():
        _refuse(name, value, "not an option of microspore's CPU backend")
    return JitOptions(capture_mode, level, _signature(input_signature))


def _signature(sig):
    if sig is None:
        return None
    sig = tuple(sig) if isinstance(sig, (tuple, list)) else (sig,)
    specs = []
    for t in sig:
        shape, dtype = getattr(t, "shape", None), getattr(t, "dtype", None)
        if shape is None or dtype is None:
            _refuse("input_signature", sig, "it must hold Tensors")
        if any(d is None or d == -1 for d in shape):
            _refuse("input_signature", sig, "a dynamic (None) dimension needs dynamic "
                    "shapes; give every dimension")
        specs.append((tuple(shape), dtype))
    return tuple(specs)


def with_signature(compiled, specs):
    """``compiled`` itself, or (with ``input_signature``) a function that checks each
    call's last ``len(specs)`` positional arguments (a method's ``self`` comes first)."""
    if specs is None:
        return compiled
    name = getattr(compiled, "__qualname__", "jit")

    @functools.wraps(compiled)
    def checked(*args, **kwargs):
        check_signature(specs, args[max(0, len(args) - len(specs)):], name)
        return compiled(*args, **kwargs)

    return checked


def check_signature(specs, args, name):
    """Raise TypeError unless ``args`` match ``input_signature``'s shapes and dtypes."""
    if len(args) != len(specs):
        raise TypeError(f"{name}: input_signature has {len(specs)} tensors, the call "
                        f"passed {len(args)} arguments")
    for i, ((shape, dtype), a) in enumerate(zip(specs, args)):
        got = (tuple(getattr(a, "shape", ())), getattr(a, "dtype", type(a)))
        if got != (shape, dtype):
            raise TypeError(f"{name}: argument {i} is {got[1]} {got[0]}, input_signature "
                            f"says {dtype} {shape}")


def fuses(jit_level) -> bool:
    """Whether graphs of this ``jit_level`` (None: the context's) fuse elementwise chains."""
    if jit_level is None:
        config = get_context("jit_config") or {}
        jit_level = config.get("jit_level")
    if jit_level is None:
        return bool(get_context("enable_graph_kernel"))
    return jit_level == "O1"
