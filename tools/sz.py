#!/usr/bin/env python3
"""Lines of code per package and per file (after tinygrad's sz.py).

A line counts when it holds code: blank lines and comment-only lines do not (docstrings
do; they are part of the API). Sources (``src/``) and tests are counted apart.

    python tools/sz.py                  every package and plugin, files largest first
    python tools/sz.py ms-ops           one package
    python tools/sz.py --max-lines 600  also fail if a source module is longer: the
                                        budget counts every line, as an editor shows them
"""

from __future__ import annotations

import argparse
import io
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = (".py", ".pyx", ".pxd")
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
         tokenize.ENCODING, tokenize.ENDMARKER}


def code_lines(text: str) -> int:
    """Lines that hold at least one token other than a comment."""
    try:
        lines = set()
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type not in _SKIP:
                lines.update(range(tok.start[0], tok.end[0] + 1))
        return len(lines)
    except (tokenize.TokenError, SyntaxError):  # Cython the tokenizer cannot follow
        return sum(1 for line in text.splitlines()
                   if line.strip() and not line.strip().startswith("#"))


def projects(names) -> list[Path]:
    found = sorted(p.parent for pat in ("packages/*/pyproject.toml", "plugins/*/pyproject.toml")
                   for p in ROOT.glob(pat))
    if names:
        found = [p for p in found if p.name in names]
        missing = set(names) - {p.name for p in found}
        if missing:
            sys.exit(f"sz: no package named {', '.join(sorted(missing))}")
    return found


def count(project: Path, part: str) -> list[tuple[int, Path]]:
    files = [p for p in (project / part).rglob("*") if p.suffix in SUFFIXES and
             "build" not in p.relative_to(project).parts]
    return sorted(((code_lines(p.read_text(encoding="utf-8")), p) for p in files),
                  key=lambda t: (-t[0], str(t[1])))


def over_budget(max_lines: int, names=()) -> list[str]:
    """Source modules (``src/``) of the packages and plugins longer than ``max_lines``."""
    return [f"{path.relative_to(ROOT)}: {n} > {max_lines} lines"
            for project in projects(names)
            for path in sorted((project / "src").rglob("*"))
            if path.suffix in SUFFIXES and "build" not in path.relative_to(project).parts
            and (n := len(path.read_text(encoding="utf-8").splitlines())) > max_lines]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="package directory names (default: all)")
    ap.add_argument("--max-lines", type=int, help="fail if a source file has more lines")
    args = ap.parse_args(argv)

    totals = []
    for project in projects(args.names):
        src, tests = count(project, "src"), count(project, "tests")
        n_src, n_tests = sum(n for n, _ in src), sum(n for n, _ in tests)
        totals.append((project, n_src, n_tests))
        print(f"\n{project.relative_to(ROOT)}: {n_src} lines in {len(src)} source files, "
              f"{n_tests} in {len(tests)} test files")
        for n, path in src:
            print(f"  {n:6d}  {path.relative_to(project / 'src')}")

    width = max((len(str(p.relative_to(ROOT))) for p, _, _ in totals), default=10)
    print(f"\n{'package':<{width}}  {'source':>7}  {'tests':>7}")
    for project, n_src, n_tests in sorted(totals, key=lambda t: -t[1]):
        print(f"{str(project.relative_to(ROOT)):<{width}}  {n_src:7d}  {n_tests:7d}")
    print(f"{'total':<{width}}  {sum(t[1] for t in totals):7d}  {sum(t[2] for t in totals):7d}")
    too_long = over_budget(args.max_lines, args.names) if args.max_lines else []
    if too_long:
        print("\nsource files over the limit:\n  " + "\n  ".join(too_long), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
