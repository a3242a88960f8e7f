"""Developer sessions: ``nox -s tests``, ``lint``, ``build``, ``bench``.

Packages are found, not listed: every ``packages/*`` and ``plugins/*`` with a
``pyproject.toml`` takes part, so a new package needs no change here.
"""

from __future__ import annotations

import shutil
import tarfile
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
    """Run every test, doctest and tree check in one environment, as CI does."""
    session.install("-r", str(ROOT / "requirements-dev.txt"))
    session.run("pytest", *session.posargs)


@nox.session
def lint(session):
    """Check the whole tree with ruff, using the rules in the root pyproject.toml."""
    session.install(RUFF)
    session.run("ruff", "check", *(session.posargs or ["."]))


@nox.session
def build(session):
    """Build every package's sdist and a wheel from it into dist/, then install from dist/."""
    session.install("build>=1")
    DIST.mkdir(exist_ok=True)
    for old in DIST.glob("*"):
        old.unlink()
    tree = _clean_tree(session)
    for project in PACKAGES + PLUGINS:
        # python -m build makes the sdist, then the wheel from that sdist alone.
        session.run("python", "-m", "build", "--outdir", str(DIST),
                    str(tree / project.relative_to(ROOT)))
    problems = [p for project in PACKAGES + PLUGINS
                for p in _check_sdist(project) + _check_wheel(project)]
    if problems:
        session.error("distribution problems:\n" + "\n".join(problems))
    _check_install(session)
    session.log(f"{len(PACKAGES + PLUGINS)} sdists and wheels in {DIST}, installed and checked")


def _clean_tree(session) -> Path:
    """A copy of the files a fresh clone has (tracked, or new and not ignored) under
    packages/, plugins/ and tools/: no stale build/, egg-info or in-place extension can
    leak into an sdist or a wheel."""
    tree = Path(session.create_tmp()).resolve() / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    listed = session.run("git", "ls-files", "--cached", "--others", "--exclude-standard",
                         "packages", "plugins", "tools", external=True, silent=True)
    for rel in listed.split():
        if (ROOT / rel).is_file():
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, tree / rel)
    return tree


def _check_sdist(project: Path) -> list[str]:
    """The sdist of ``project`` carries its Cython sources and, where it builds
    extensions, the build script (so it builds alone)."""
    name = project.name.replace("-", "_")
    sdists = sorted(DIST.glob(f"{name}-*.tar.gz"))
    if not sdists:
        return [f"{project.name}: no sdist {name}-*.tar.gz in {DIST}"]
    with tarfile.open(sdists[-1]) as tar:
        files = [m.name.split("/", 1)[-1] for m in tar.getmembers()]
    needed = [p.relative_to(project).as_posix() for p in project.glob("src/**/*.pyx")]
    if needed:
        needed.append("ms_build.py")
    return [f"{sdists[-1].name}: lacks {f}" for f in needed if f not in files]


def _check_install(session) -> None:
    """A fresh venv (stock pip) installs microspore and the plugins from dist/ and the
    index, outside the source tree; tools/check_install.py calls the kernels."""
    venv = Path(session.create_tmp()).resolve() / "wheelhouse-venv"
    shutil.rmtree(venv, ignore_errors=True)
    session.run("python", "-m", "venv", str(venv))
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--find-links",
           str(DIST)]
    with session.chdir(venv):
        session.run(*pip, "microspore", *(p.name for p in PLUGINS), external=True)
        session.run(str(venv / "bin" / "python"), str(ROOT / "tools" / "check_install.py"),
                    external=True)


def _check_wheel(project: Path) -> list[str]:
    """The wheel of ``project`` ships no .c/.pyx/.pxd and one extension per .pyx."""
    name = project.name.replace("-", "_")
    wheels = sorted(DIST.glob(f"{name}-*.whl"))
    if not wheels:
        return [f"{project.name}: no wheel {name}-*.whl in {DIST}"]
    wheel = wheels[-1]
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


@nox.session
def fuzz_data(session):
    """Fuzz ms-data's file loaders with atheris, 300 s per target (or the seconds after --)."""
    session.install("atheris", *_editable(PACKAGES))
    seconds = session.posargs[0] if session.posargs else "300"
    for target in ("mnist", "cifar", "records", "image"):
        corpus = Path(session.create_tmp()) / f"data-{target}-corpus"
        corpus.mkdir(exist_ok=True)
        session.run("python", str(ROOT / "packages/ms-data/tests/fuzz_loaders.py"), target,
                    f"-max_total_time={seconds}", "-timeout=10", str(corpus))
