"""A progress bar for long runs (explaining a dataset, profiling many steps).

tqdm draws it; by default only on a terminal, so CI logs and pipes stay clean.

>>> import io
>>> out = io.StringIO()
>>> sum(progress(range(3), desc="explain", enabled=True, file=out))
3
>>> "3/3" in out.getvalue()
True
"""

from __future__ import annotations

import sys

__all__ = ["progress"]


def progress(iterable=None, total: int | None = None, desc: str | None = None,
             enabled: bool | None = None, file=None, unit: str = "it"):
    """Wrap ``iterable`` in a progress bar (a tqdm object: also ``update(n)`` / ``close()``
    / a context manager when ``iterable`` is None).

    Args:
        total: the number of items, where ``len(iterable)`` does not tell it.
        desc: the label in front of the bar.
        enabled: True draws always, False never, None (default) only when ``file`` is a
            terminal.
        file: where to draw (default ``sys.stderr``).
    """
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, file=file or sys.stderr, unit=unit,
                disable=None if enabled is None else not enabled, dynamic_ncols=True)
