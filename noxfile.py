"""Developer sessions: ``nox -s tests``, ``lint``, ``build``, ``bench``.

Packages are found, not listed: every ``packages/*`` and ``plugins/*`` with a
``pyproject.toml`` takes part, so a new package needs no change here.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import nox

ROOT = Path(__file__).parent
PACKAGES = sorted(p.parent for p in ROOT.glob("packages/*/pyproject.toml"))
PLUGINS = sorted(p.parent for p in ROOT.glob("plugins/*/pyproject.toml"))
DIST = ROOT / "dist"
RUFF = "ruff==0.17.5"
# Sources that must stay out of a wheel: only compiled extensions ship.
SOURCE_SUFFIXES = (".c", ".pyx", ".pxd")

nox.options.sessions = ["lint", "tests"]
nox.options.default_venv_backend = "venv"


def _editable(paths) -> list[str]:
    return [arg for p in paths for arg in ("-e", str(p))]


@nox.session
def tests(session):
    """Run every package's, plugin's and integration test in one environment."""
    session.install("pytest>=7", "hypothesis>=6", "setuptools>=68",
                    *_editable(PACKAGES + PLUGINS))
    session.run("pytest", *session.posargs)


@nox.session
def lint(session):
    """Check the whole tree with ruff, using the rules in the root pyproject.toml."""
    session.install(RUFF)
    session.run("ruff", "check", *(session.posargs or ["."]))


@nox.session
def build(session):
    """Build a wheel of every package and plugin into dist/ and check what they contain."""
    session.install("build>=1")
    DIST.mkdir(exist_ok=True)
    for project in PACKAGES + PLUGINS:
        # Build from a copy of the files a fresh clone has (tracked, or new and not
        # ignored): no stale build/ tree or in-place extension can leak into the wheel.
        copy = Path(session.create_tmp()) / project.name
        shutil.rmtree(copy, ignore_errors=True)
        listed = session.run("git", "ls-files", "--cached", "--others", "--exclude-standard",
                             str(project.relative_to(ROOT)), external=True, silent=True)
        for rel in listed.split():
            if (ROOT / rel).is_file():
                dest = copy / Path(rel).relative_to(project.relative_to(ROOT))
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / rel, dest)
        session.run("python", "-m", "build", "--wheel", "--outdir", str(DIST), str(copy))
    problems = []
    for project in PACKAGES + PLUGINS:
        problems += _check_wheel(project)
    if problems:
        session.error("wheel problems:\n" + "\n".join(problems))
    session.log(f"{len(PACKAGES + PLUGINS)} wheels in {DIST}, no C or Cython sources in them")


def _check_wheel(project: Path) -> list[str]:
    """The wheel of ``project`` ships no .c/.pyx/.pxd and one extension per .pyx."""
    name = project.name.replace("-", "_")
    wheels = sorted(DIST.glob(f"{name}-*.whl"), key=lambda p: p.stat().st_mtime)
    if not wheels:
        return [f"{project.name}: no wheel {name}-*.whl in {DIST}"]
    wheel = wheels[-1]  # the one just built
    with zipfile.ZipFile(wheel) as whl:
        files = whl.namelist()
    problems = [f"{wheel.name}: ships source {f}" for f in files if f.endswith(SOURCE_SUFFIXES)]
    for pyx in project.glob("src/**/*.pyx"):
        module = pyx.relative_to(project / "src").with_suffix("").as_posix()
        if not any(f.startswith(f"{module}.") and f.endswith((".so", ".pyd")) for f in files):
            problems.append(f"{wheel.name}: {pyx.name} was not compiled into it")
    return problems


@nox.session
def bench(session):
    """Run the benchmark scripts in benchmarks/ (or those named after ``--``)."""
    session.install(*_editable(PACKAGES))
    scripts = session.posargs or sorted(str(p) for p in ROOT.glob("benchmarks/*.py"))
    if not scripts:
        session.skip("no benchmark scripts in benchmarks/")
    for script in scripts:
        session.run("python", script)


@nox.session
def fuzz_checkpoint(session):
    """Fuzz the checkpoint loader with atheris for 10 minutes (or the seconds after ``--``)."""
    session.install("atheris", *_editable(PACKAGES))
    seconds = session.posargs[0] if session.posargs else "600"
    corpus = Path(session.create_tmp()) / "checkpoint-corpus"
    corpus.mkdir(exist_ok=True)
    session.run("python", str(ROOT / "packages/ms-nn/tests/fuzz_checkpoint.py"),
                f"-max_total_time={seconds}", "-timeout=10", str(corpus))


@nox.session
def fuzz(session):
    """Run the graph differential fuzzer on 2,000 programs (or the number after ``--``)."""
    session.install("hypothesis", "pytest", *_editable(PACKAGES))
    examples = session.posargs[0] if session.posargs else "2000"
    session.run("pytest", "-q", "-p", "no:cacheprovider",
                str(ROOT / "packages/ms-graph/tests/test_fuzz_graph.py"),
                env={"MS_FUZZ_EXAMPLES": examples})
