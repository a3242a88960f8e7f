"""Sample inputs for every ms-ops operator, one module per family (as in ``defs``).

Each module has ``SAMPLES = {"OpName": fn}``; ``fn(rng)`` yields ``(args, attrs)``:
float64 numpy arrays for tensor inputs (shapes that exercise broadcasting where the
operator broadcasts, values inside the operator's smooth domain), Python values for
static inputs, and the attributes. They feed the registry-wide gradient check in
ms-autodiff and any suite that must cover every operator.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["families"]


def families():
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return [importlib.import_module(f"{__name__}.{n}") for n in names]
