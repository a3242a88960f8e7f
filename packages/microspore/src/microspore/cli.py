"""The ``microspore`` command: ``microspore info`` and the subcommands plugins register.

Subcommands come from the registry (hook ``ms_register_cli_commands``): a package or
plugin adds ``registry.add_cli_command("name", fn, help="...")`` and ``microspore name
ARGS...`` calls ``fn(ARGS)``. ``info`` is built in.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections import defaultdict
from importlib import metadata

__all__ = ["main", "info"]

_GROUP = "microspore"  # the entry-point group plugins are found through


def _family() -> list[metadata.Distribution]:
    """Installed distributions of microspore: its packages and every plugin."""
    found = {}
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        ours = name == "microspore" or name.startswith("ms-")
        plugin = any(ep.group == _GROUP for ep in dist.entry_points)
        if ours or plugin:
            found.setdefault(name, dist)
    return [found[n] for n in sorted(found)]


def _wrapped(prefix: str, words: list[str], width: int = 100) -> list[str]:
    return textwrap.wrap(", ".join(words), width=width, initial_indent=prefix,
                         subsequent_indent=" " * len(prefix), break_on_hyphens=False)


def info(argv: list[str]) -> int:
    """Print the runtime settings (BLAS, threads, malloc and OpenMP tuning), installed
    packages and plugins, then everything in the registry."""
    parser = argparse.ArgumentParser(prog="microspore info", description=info.__doc__)
    parser.add_argument("--lines", action="store_true",
                        help="one registry entry per line: KIND NAME BACKEND PLUGIN")
    args = parser.parse_args(argv)

    from ms_tensor import registry

    reg = registry.load()
    if args.lines:
        print(registry.format_entries(reg))
        return 0
    from ms_ops import blas, tuning
    from ms_ops.kernels import threads

    print(f"microspore on Python {sys.version.split()[0]}")
    print(f"matrix products: {blas.backend()}")
    print(f"threads: {threads.describe()}")
    for name, value in tuning.settings().items():
        print(f"{name}: {value}")
    print("packages and plugins:")
    for dist in _family():
        eps = [f"{ep.name} = {ep.value}" for ep in dist.entry_points if ep.group == _GROUP]
        plugin = f"  (plugin: {'; '.join(eps)})" if eps else ""
        print(f"  {dist.metadata['Name']:<22} {dist.version}{plugin}")
    entries = reg.entries()
    print(f"registry: {len(entries)} entries")
    by_kind: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for e in entries:
        by_kind[e.kind][e.plugin].append(e.name + (f"@{e.backend}" if e.backend else ""))
    for kind in sorted(by_kind):
        plugins = by_kind[kind]
        print(f"  {kind} ({sum(map(len, plugins.values()))}):")
        for plugin in sorted(plugins):
            print("\n".join(_wrapped(f"    [{plugin}] ", plugins[plugin])))
    for c in reg.conflicts:  # registrations dropped because another plugin owns the name
        print(f"conflict: {c}")
    return 0


_BUILTIN = {"info": (info, "installed packages, plugins and everything in the registry")}


def _commands() -> dict[str, tuple]:
    """``{name: (get_fn, help, plugin)}``: the built-in commands, then the registered ones.

    ``get_fn()`` gives the function; a registered ``"module:attr"`` is imported only then,
    so ``--help`` and every other command work while one plugin's module is broken."""
    from ms_tensor import registry

    commands = {name: ((lambda fn=fn: fn), help_, "microspore")
                for name, (fn, help_) in _BUILTIN.items()}
    for e in registry.load().entries("cli_command"):
        if e.name in commands:
            raise registry.RegistrationError(
                f"plugin {e.plugin!r} registers the CLI command {e.name!r}, which "
                f"{commands[e.name][2]!r} already provides")
        commands[e.name] = ((lambda e=e: e.value), e.info.get("help", ""), e.plugin)
    return commands


def _usage(commands: dict) -> str:
    width = max(map(len, commands))
    lines = ["usage: microspore COMMAND [ARGS...]", "", "commands:"]
    for name, (_, help_, plugin) in sorted(commands.items()):
        lines.append(f"  {name:<{width}}  {help_} [{plugin}]")
    lines.append("")
    lines.append("`microspore COMMAND --help` describes one command.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``microspore`` console script."""
    argv = sys.argv[1:] if argv is None else list(argv)
    commands = _commands()
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage(commands))
        return 0
    if argv[0] == "--version":
        print(f"microspore {metadata.version('microspore')}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in commands:
        print(f"microspore: unknown command {name!r}\n\n{_usage(commands)}", file=sys.stderr)
        return 2
    try:
        status = commands[name][0]()(rest)
    except BrokenPipeError:  # output piped into `head`: stop quietly, as Unix tools do
        sys.stdout = open(os.devnull, "w")  # kept open: exit flushes into it
        return 0
    return 0 if status is None else int(status)

