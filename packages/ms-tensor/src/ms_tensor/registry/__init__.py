"""The registry: what every plugin registered, loaded once through pluggy.

Dispatch never calls a hook: hooks fill plain dicts once (``load()``), and lookups
are dict reads. A value may be registered as a ``"module:attr"`` string: it is imported
on first lookup, so registering graph passes imports no graph code. Two plugins that
claim the same entry without an explicit priority do not break the framework: the
framework's own packages win, otherwise the earlier plugin does; the newer registration
is dropped with a warning and kept in ``Registry.conflicts``. ``python -m
ms_tensor.registry`` prints every entry as ``<kind> <name> <backend-or-> <plugin>``,
then the conflicts.
"""

from __future__ import annotations

import importlib
import re
import sys
import threading
import warnings
from typing import Any, NamedTuple

import pluggy

from ms_tensor import hookspecs

__all__ = [
    "RegistrationError", "RegistrationWarning", "Conflict", "Entry", "Registry",
    "RegistryView", "FRAMEWORK", "get", "load", "reset", "generation", "on_load",
    "on_reset", "register_plugin",
    "unregister_plugin", "main",
]

# Top-level modules of the framework's own packages: their plugins register first and
# win every collision with a third-party plugin.
FRAMEWORK = frozenset({
    "ms_tensor", "ms_ops", "ms_ops_scipy", "ms_autodiff", "ms_graph", "ms_nn", "ms_data",
    "ms_parallel", "ms_lite", "ms_insight", "ms_device_ascend", "microspore"})

_LAZY = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


class RegistrationError(RuntimeError):
    """A registration names something unknown, or one plugin registers a thing twice."""


class RegistrationWarning(UserWarning):
    """A plugin's registration was dropped because another plugin owns that entry."""


class Conflict(NamedTuple):
    """One dropped registration: ``what`` collided; ``kept`` wins over ``dropped``."""
    what: str
    kept: str
    dropped: str

    def __str__(self) -> str:
        return (f"{self.what} is registered by plugin {self.kept!r} and by plugin "
                f"{self.dropped!r}; {self.dropped!r}'s registration is disabled (pass "
                "priority=... to choose)")


class _Lazy:
    __slots__ = ("path",)

    def __init__(self, path: str):
        self.path = path

    def resolve(self):
        module, _, attr = self.path.partition(":")
        value = importlib.import_module(module)
        for part in attr.split("."):
            value = getattr(value, part)
        return value


class Entry:
    """One registered thing; ``value`` imports a ``"module:attr"`` registration once."""

    __slots__ = ("kind", "name", "backend", "plugin", "_value", "priority", "info")

    def __init__(self, kind: str, name: str, backend: str | None, plugin: str, value: Any,
                 priority: int | None, info: dict):
        self.kind = kind
        self.name = name
        self.backend = backend
        self.plugin = plugin
        self._value = value
        self.priority = priority
        self.info = info

    @property
    def value(self):
        v = self._value
        if type(v) is _Lazy:
            v = self._value = v.resolve()
        return v

    @property
    def key(self) -> tuple:
        return (self.kind, self.name, self.backend)

    def __repr__(self) -> str:
        return f"Entry({self.kind} {self.name} {self.backend or '-'} {self.plugin})"


def _op_name(op) -> str:
    return op if isinstance(op, str) else op.name


def _what(kind: str, name: str, backend: str | None) -> str:
    return f"{kind} {name!r}" + (f" for backend {backend!r}" if backend else "")


class Registry:
    """Tables of registered entries, keyed by ``(kind, name, backend)``."""

    def __init__(self, framework=()):
        self._entries: dict[tuple, Entry] = {}
        self.framework = frozenset(framework)  # plugin names of the framework's packages
        self.conflicts: list[Conflict] = []
        self.generation = 0

    # -- adding ---------------------------------------------------------------
    def _winner(self, old: Entry, new: Entry) -> Entry:
        """The entry that keeps the key; raises only for one plugin's own duplicate."""
        po, pn = old.priority, new.priority
        if (po is not None or pn is not None) and po != pn:
            lo = -sys.maxsize
            return new if (pn if pn is not None else lo) > (po if po is not None else lo) \
                else old
        if old.plugin == new.plugin:
            raise RegistrationError(f"{_what(*new.key)} is registered twice by plugin "
                                    f"{new.plugin!r}")
        if new.plugin in self.framework and old.plugin not in self.framework:
            return new
        return old

    def _add_all(self, entries: list[Entry]) -> bool:
        """Add ``entries`` together, or none of them if any loses a collision."""
        for e in entries:
            old = self._entries.get(e.key)
            if old is not None and self._winner(old, e) is old:
                if old.priority == e.priority:  # not an override someone asked for
                    self._conflict(_what(*e.key), old.plugin, e.plugin)
                return False
        for e in entries:
            old = self._entries.get(e.key)
            if old is not None and old.priority == e.priority:  # the framework's, over a plugin's
                self._conflict(_what(*e.key), e.plugin, old.plugin)
            self._entries[e.key] = e
        return True

    def _conflict(self, what: str, kept: str, dropped: str) -> None:
        c = Conflict(what, kept, dropped)
        self.conflicts.append(c)
        warnings.warn(str(c), RegistrationWarning, stacklevel=4)

    def view(self, plugin: str) -> RegistryView:
        return RegistryView(self, plugin)

    # -- lookups (the hot path reads these) -------------------------------------
    def lookup(self, kind: str, name: str, backend: str | None = None):
        e = self._entries.get((kind, name, backend))
        return None if e is None else e.value

    def entry(self, kind: str, name: str, backend: str | None = None) -> Entry | None:
        return self._entries.get((kind, name, backend))

    def entries(self, kind: str | None = None) -> list[Entry]:
        es = [e for e in self._entries.values() if kind is None or e.kind == kind]
        return sorted(es, key=lambda e: (e.kind, e.name, e.backend or ""))

    def in_order(self, kind: str) -> list[Entry]:
        """Entries of ``kind`` in registration order (graph passes run in this order)."""
        return [e for e in self._entries.values() if e.kind == kind]

    def names(self, kind: str) -> list[str]:
        return sorted({e.name for e in self._entries.values() if e.kind == kind})

    def primitive(self, name: str):
        return self.lookup("primitive", name)

    def kernel(self, op, backend: str):
        e = self._entries.get(("kernel", _op_name(op), backend))
        if e is not None:
            return e.value
        if ("backend", backend, None) not in self._entries:
            raise RegistrationError(f"unknown backend {backend!r}; registered backends: "
                                    f"{', '.join(self.names('backend')) or 'none'}")
        return None

    def bprop(self, op):
        return self.lookup("bprop", _op_name(op))

    def backend(self, name: str):
        b = self.lookup("backend", name)
        if b is None:
            raise RegistrationError(f"unknown backend {name!r}; registered backends: "
                                    f"{', '.join(self.names('backend')) or 'none'}")
        return b


class RegistryView:
    """What one plugin's hook receives: every ``add_*`` is recorded under its name."""

    def __init__(self, registry: Registry, plugin: str):
        self._reg = registry
        self.plugin = plugin

    def _make(self, kind, name, backend, value, priority, info) -> Entry:
        if isinstance(value, str) and kind != "c_template" and _LAZY.fullmatch(value):
            value = _Lazy(value)
        return Entry(kind, name, backend, self.plugin, value, priority, info)

    def _entry(self, kind, name, backend, value, priority, **info) -> bool:
        return self._reg._add_all([self._make(kind, name, backend, value, priority, info)])

    def _check_backend(self, name: str, backend: str) -> None:
        if ("backend", backend, None) not in self._reg._entries:
            raise RegistrationError(
                f"plugin {self.plugin!r} adds a kernel for {name!r} on unknown backend "
                f"{backend!r}; registered backends: {', '.join(self._reg.names('backend'))}")

    def add_backend(self, backend, *, priority: int | None = None) -> None:
        self._entry("backend", backend.name, None, backend, priority)

    def add_op(self, op, *, priority: int | None = None) -> bool:
        """Register everything ``op`` declares (see ``hookspecs.ms_register_ops``).

        The operator enters whole or not at all: if any of its entries loses a collision,
        none is added (a warning names both plugins). Returns whether it was added.
        """
        entries = []
        for kind, name, backend, value, info in op.registrations():
            if kind == "kernel":
                self._check_backend(name, backend)
                info = dict(info, dtypes=None if info.get("dtypes") is None
                            else frozenset(info["dtypes"]), out=bool(info.get("out")))
            entries.append(self._make(kind, name, backend, value, priority, info))
        return self._reg._add_all(entries)

    def add_ops(self, *ops, priority: int | None = None) -> None:
        for op in ops:
            self.add_op(op, priority=priority)

    def add_kernel(self, op, backend: str, fn, *, dtypes=None, out: bool = False,
                   priority: int | None = None) -> bool:
        """Add or override one backend's kernel of a registered operator.

        ``out=True``: ``fn`` also accepts ``out=``, an array of the result's shape and
        dtype that it fills and returns (engines that plan memory pass one).
        """
        name = _op_name(op)
        if ("primitive", name, None) not in self._reg._entries:
            raise RegistrationError(f"plugin {self.plugin!r} adds a {backend} kernel for "
                                    f"unknown primitive {name!r}")
        self._check_backend(name, backend)
        return self._entry("kernel", name, backend, fn, priority,
                           dtypes=None if dtypes is None else frozenset(dtypes),
                           out=bool(out))

    def add_function(self, name: str, fn, *, priority: int | None = None) -> None:
        """``ops.NAME`` for a function that is not one operator (``clamp``, ``softmax``);
        an operator's names come with it (``add_op``)."""
        self._entry("function", name, None, fn, priority)

    def add_tensor_method(self, name: str, fn, *, priority: int | None = None) -> None:
        """``Tensor.NAME`` for a function that is not one operator; ``fn`` receives the
        tensor first (a ``property`` for attributes such as ``x.T``)."""
        self._entry("tensor_method", name, None, fn, priority)

    def add_pass(self, name: str, fn, *, stage: str = "optimize",
                 priority: int | None = None) -> None:
        self._entry("pass", name, None, fn, priority, stage=stage)

    def add_cli_command(self, name: str, fn, *, help: str = "",
                        priority: int | None = None) -> None:
        """A ``microspore NAME ...`` subcommand: ``fn(argv) -> int | None``."""
        if not name or name.startswith("-") or any(c.isspace() for c in name):
            raise RegistrationError(f"plugin {self.plugin!r} adds a CLI command with an "
                                    f"unusable name {name!r} (one word, not starting with '-')")
        self._entry("cli_command", name, None, fn, priority, help=help)

    def add_explainer(self, name: str, cls, *, priority: int | None = None) -> None:
        """A saliency explainer class (``cls(network, ...)(inputs, targets)``)."""
        self._entry("explainer", name, None, cls, priority)

    def add_c_template(self, op, template, *, dtype: str = "float32",
                       priority: int | None = None) -> None:
        """C code of ``op`` for ms-lite's code generator, for tensors of ``dtype``."""
        self._entry("c_template", _op_name(op), dtype, template, priority)

    def add_onnx_exporter(self, op, fn, *, priority: int | None = None) -> None:
        """How a lite graph node of operator ``op`` becomes ONNX nodes (``fn(ctx, node)``)."""
        self._entry("onnx_exporter", _op_name(op), None, fn, priority)

    def add_onnx_importer(self, op_type: str, fn, *, priority: int | None = None) -> None:
        """How an ONNX node of ``op_type`` becomes registry operators (``fn(ctx, node)``)."""
        self._entry("onnx_importer", op_type, None, fn, priority)

    def add(self, kind: str, name: str, value, *, backend: str | None = None,
            priority: int | None = None, **info) -> None:
        """Register an entry of a kind that later packages define (e.g. ``"dataset_source"``)."""
        self._entry(kind, name, backend, value, priority, **info)


# -- the process-wide registry ------------------------------------------------------
_lock = threading.RLock()
_registry: Registry | None = None
_extra_plugins: list[tuple[object, str]] = []
_generation = 0
_on_load: list = []
_on_reset: list = []


def _plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    pm.load_setuptools_entrypoints(hookspecs.PROJECT)
    for plugin, name in _extra_plugins:
        if pm.get_plugin(name) is None:
            pm.register(plugin, name=name)
    pm.check_pending()
    return pm


def _is_framework(plugin: object) -> bool:
    module = plugin.__name__ if isinstance(plugin, type(sys)) else type(plugin).__module__
    return module.partition(".")[0] in FRAMEWORK


def load() -> Registry:
    """Load every plugin once and return the registry (cheap after the first call)."""
    global _registry, _generation
    if _registry is not None:
        return _registry
    with _lock:
        if _registry is not None:
            return _registry
        pm = _plugin_manager()
        reg = Registry(n for n, p in pm.list_name_plugin() if _is_framework(p))
        for hook_name in hookspecs.HOOK_ORDER:
            impls = getattr(pm.hook, hook_name).get_hookimpls()
            # The framework's own plugins first, so a third-party plugin is the newer one.
            for impl in sorted(impls, key=lambda i: i.plugin_name not in reg.framework):
                try:
                    impl.function(registry=reg.view(impl.plugin_name))
                except RegistrationError:
                    raise
                except Exception as e:
                    raise RegistrationError(
                        f"plugin {impl.plugin_name!r} failed in {hook_name}: "
                        f"{type(e).__name__}: {e}") from e
        _generation += 1
        reg.generation = _generation
        for callback in list(_on_load):
            callback(reg)
        _registry = reg
        return reg


get = load


def on_load(callback) -> None:
    """Call ``callback(registry)`` after every (re)load, e.g. to install Tensor methods."""
    _on_load.append(callback)
    if _registry is not None:
        callback(_registry)


def loaded() -> Registry | None:
    return _registry


def generation() -> int:
    """A number that changes whenever what is registered may have changed (each load and
    reset): compiled graphs and plans made under another generation are stale."""
    return _generation


def on_reset(callback) -> None:
    """Call ``callback()`` after every ``reset()``, e.g. to drop cached plans at once."""
    _on_reset.append(callback)


def reset() -> None:
    """Forget everything loaded; the next lookup loads the plugins again."""
    global _registry, _generation
    with _lock:
        _registry = None
        _generation += 1  # every cached kernel and plan is now stale
        for callback in list(_on_reset):
            callback()


def register_plugin(plugin: object, name: str) -> None:
    """Add a plugin object (a module or instance with hookimpls) without an entry point."""
    with _lock:
        _extra_plugins.append((plugin, name))
        reset()


def unregister_plugin(name: str) -> None:
    with _lock:
        _extra_plugins[:] = [(p, n) for p, n in _extra_plugins if n != name]
        reset()


def format_entries(reg: Registry) -> str:
    return "\n".join(f"{e.kind} {e.name} {e.backend or '-'} {e.plugin}" for e in reg.entries())


def format_conflicts(reg: Registry) -> str:
    return "\n".join(f"conflict: {c}" for c in reg.conflicts)


def main() -> int:
    reg = load()
    print(format_entries(reg))
    if reg.conflicts:
        print(format_conflicts(reg))
    return 0
