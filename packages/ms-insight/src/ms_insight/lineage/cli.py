"""``microspore insight lineage DIR [--fields a,b] [--json]``."""

from __future__ import annotations

import argparse
import json
import sys

from ms_insight.lineage.store import load_runs
from ms_insight.lineage.table import format_table

__all__ = ["main"]


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="microspore insight lineage",
                                     description="Compare the lineage of the training runs "
                                                 "(summary directories) under DIR.")
    parser.add_argument("dir", help="a summary base directory (each run in a subdirectory)")
    parser.add_argument("--fields", default="",
                        help="comma-separated fields or groups to show (e.g. metrics,network)")
    parser.add_argument("--json", action="store_true", help="print the records as JSON")
    args = parser.parse_args(argv)
    try:
        runs = load_runs(args.dir)
    except (FileNotFoundError, ValueError) as e:
        print(f"microspore insight lineage: {e}", file=sys.stderr)
        return 1
    if not runs:
        print(f"microspore insight lineage: no run with a lineage.json under {args.dir}",
              file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(runs, indent=1, sort_keys=True))
    else:
        print(format_table(runs, [f for f in args.fields.split(",") if f]))
    return 0
