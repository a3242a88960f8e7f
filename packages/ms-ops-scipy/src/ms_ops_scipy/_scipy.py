"""SciPy, imported on the first kernel call: registering the operators (which every
``import microspore`` does) must not pay the seconds ``scipy.special`` takes to import."""

from __future__ import annotations

import importlib


def special(name: str):
    """``scipy.special.<name>``."""
    return getattr(importlib.import_module("scipy.special"), name)


def linalg(name: str):
    """``scipy.linalg.<name>``."""
    return getattr(importlib.import_module("scipy.linalg"), name)
