"""The registry: what every plugin registered, loaded once through pluggy.

Dispatch never calls a hook: hooks fill plain dicts once (``load()``), and lookups
are dict reads. ``python -m ms_tensor.registry`` prints every entry as
``<kind> <name> <backend-or-> <plugin>``.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, NamedTuple

import pluggy

from ms_tensor import hookspecs

__all__ = [
    "RegistrationError", "Entry", "Registry", "RegistryView", "get", "load", "reset",
    "register_plugin", "unregister_plugin", "main",
]


class RegistrationError(RuntimeError):
    """Two plugins claim the same thing, or a registration names something unknown."""


class Entry(NamedTuple):
    kind: str
    name: str
    backend: str | None
    plugin: str
    value: Any
    priority: int | None
    info: dict


def _op_name(op) -> str:
    return op if isinstance(op, str) else op.name


class Registry:
    """Tables of registered entries, keyed by ``(kind, name, backend)``."""

    def __init__(self):
        self._entries: dict[tuple, Entry] = {}
        self.generation = 0

    # -- adding ---------------------------------------------------------------
    def _add(self, entry: Entry) -> None:
        key = (entry.kind, entry.name, entry.backend)
        old = self._entries.get(key)
        if old is not None:
            entry = _resolve(old, entry)
        self._entries[key] = entry

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


def _resolve(old: Entry, new: Entry) -> Entry:
    """Keep the entry with the explicitly higher priority, or fail naming both plugins."""
    what = f"{new.kind} {new.name!r}" + (f" for backend {new.backend!r}" if new.backend else "")
    if old.priority is None and new.priority is None:
        raise RegistrationError(
            f"{what} is registered twice: by plugin {old.plugin!r} and by plugin "
            f"{new.plugin!r}; pass priority=... in one of them to choose")
    po = old.priority if old.priority is not None else -sys.maxsize
    pn = new.priority if new.priority is not None else -sys.maxsize
    if po == pn:
        raise RegistrationError(
            f"{what} is registered twice with the same priority {po}: by plugin "
            f"{old.plugin!r} and by plugin {new.plugin!r}")
    return new if pn > po else old


class RegistryView:
    """What one plugin's hook receives: every ``add_*`` is recorded under its name."""

    def __init__(self, registry: Registry, plugin: str):
        self._reg = registry
        self.plugin = plugin

    def _entry(self, kind, name, backend, value, priority, **info):
        self._reg._add(Entry(kind, name, backend, self.plugin, value, priority, info))

    def add_backend(self, backend, *, priority: int | None = None) -> None:
        self._entry("backend", backend.name, None, backend, priority)

    def add_primitive(self, opdef, *, priority: int | None = None) -> None:
        self._entry("primitive", opdef.name, None, opdef, priority)

    def add_kernel(self, op, backend: str, fn, *, dtypes=None, out: bool = False,
                   priority: int | None = None):
        """``out=True``: ``fn`` also accepts ``out=``, an array of the result's shape and
        dtype that it fills and returns (engines that plan memory pass one)."""
        name = _op_name(op)
        if ("primitive", name, None) not in self._reg._entries:
            raise RegistrationError(f"plugin {self.plugin!r} adds a {backend} kernel for "
                                    f"unknown primitive {name!r}")
        if ("backend", backend, None) not in self._reg._entries:
            raise RegistrationError(
                f"plugin {self.plugin!r} adds a kernel for {name!r} on unknown backend "
                f"{backend!r}; registered backends: {', '.join(self._reg.names('backend'))}")
        self._entry("kernel", name, backend, fn, priority,
                    dtypes=None if dtypes is None else frozenset(dtypes), out=bool(out))

    def add_bprop(self, op, fn, *, priority: int | None = None) -> None:
        name = _op_name(op)
        if ("primitive", name, None) not in self._reg._entries:
            raise RegistrationError(f"plugin {self.plugin!r} adds a gradient rule for "
                                    f"unknown primitive {name!r}")
        self._entry("bprop", name, None, fn, priority)

    def add_function(self, name: str, fn, *, priority: int | None = None) -> None:
        self._entry("function", name, None, fn, priority)

    def add_tensor_method(self, name: str, fn, *, priority: int | None = None) -> None:
        self._entry("tensor_method", name, None, fn, priority)

    def add_pass(self, name: str, fn, *, stage: str = "optimize",
                 priority: int | None = None) -> None:
        self._entry("pass", name, None, fn, priority, stage=stage)

    def add_op_sample(self, op, fn, *, priority: int | None = None) -> None:
        name = _op_name(op)
        if ("primitive", name, None) not in self._reg._entries:
            raise RegistrationError(f"plugin {self.plugin!r} adds samples for unknown "
                                    f"primitive {name!r}")
        self._entry("op_sample", name, None, fn, priority)

    def add_cli_command(self, name: str, fn, *, help: str = "",
                        priority: int | None = None) -> None:
        """A ``microspore NAME ...`` subcommand: ``fn(argv) -> int | None``."""
        if not name or name.startswith("-") or any(c.isspace() for c in name):
            raise RegistrationError(f"plugin {self.plugin!r} adds a CLI command with an "
                                    f"unusable name {name!r} (one word, not starting with '-')")
        self._entry("cli_command", name, None, fn, priority, help=help)

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


def _plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    pm.load_setuptools_entrypoints(hookspecs.PROJECT)
    for plugin, name in _extra_plugins:
        if pm.get_plugin(name) is None:
            pm.register(plugin, name=name)
    pm.check_pending()
    return pm


def load() -> Registry:
    """Load every plugin once and return the registry (cheap after the first call)."""
    global _registry, _generation
    if _registry is not None:
        return _registry
    with _lock:
        if _registry is not None:
            return _registry
        pm = _plugin_manager()
        reg = Registry()
        for hook_name in hookspecs.HOOK_ORDER:
            for impl in getattr(pm.hook, hook_name).get_hookimpls():
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


def reset() -> None:
    """Forget everything loaded; the next lookup loads the plugins again."""
    global _registry, _generation
    with _lock:
        _registry = None
        _generation += 1  # every cached kernel and plan is now stale


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


def main() -> int:
    print(format_entries(load()))
    return 0

