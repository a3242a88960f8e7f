"""``microspore insight SUBCOMMAND ...``: one command, a subcommand per tool.

Each subcommand is ``"module:function"`` taking the remaining arguments (imported only
when run). ``lineage`` prints the runs under a directory side by side.
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["SUBCOMMANDS", "main"]

SUBCOMMANDS = {
    "lineage": ("ms_insight.lineage.cli:main", "compare the runs' lineage under DIR"),
    "start": ("ms_insight.dashboard.cli:main",
              "serve the dashboard: runs, lineage, explanations (--summary-base-dir DIR --port N)"),
}


def _usage() -> str:
    lines = ["usage: microspore insight SUBCOMMAND [ARGS...]", "", "subcommands:"]
    lines += [f"  {name:10s} {text}" for name, (_, text) in sorted(SUBCOMMANDS.items())]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        print(f"microspore insight: unknown subcommand {name!r}\n{_usage()}", file=sys.stderr)
        return 2
    module, _, fn = SUBCOMMANDS[name][0].partition(":")
    return getattr(importlib.import_module(module), fn)(rest) or 0
