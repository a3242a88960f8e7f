"""The names every ``>>>`` example may use without importing them, as a MindSpore user has
them: ``np``, ``ms`` (microspore), ``ops``, ``nn``, ``Tensor``, ``Parameter``, ``mstype``.

Each name comes from the lowest package that holds it, and only when that package is
installed, so a package's examples run with that package and the ones below it alone.
"""

from __future__ import annotations

import importlib

import pytest

_NAMES = {
    "np": ("numpy", None),
    "Tensor": ("ms_tensor", "Tensor"),
    "Parameter": ("ms_tensor", "Parameter"),
    "mstype": ("ms_tensor", None),
    "ops": ("ms_ops", None),
    "nn": ("ms_nn", None),
    "ms": ("microspore", None),
}


@pytest.fixture(autouse=True)
def _doctest_names(request):
    if not isinstance(request.node, pytest.DoctestItem):
        return
    namespace = request.getfixturevalue("doctest_namespace")
    for name, (module, attr) in _NAMES.items():
        try:
            value = importlib.import_module(module)
        except ImportError:
            continue
        namespace[name] = getattr(value, attr) if attr else value


# Scripts that run when imported (the seeds, the build scripts): tests run them by path.
collect_ignore_glob = ["integration_tests/seed_scripts/*.py", "packages/*/setup.py",
                       "plugins/*/setup.py", "integration_tests/doc_examples/*.py",
                       "integration_tests/tutorials/*.py"]
