"""``microspore_lite``: MindSpore Lite's Python package name (``mindspore_lite``) for
ms-lite. ``import microspore_lite as mslite`` then ``mslite.Model()``, ``mslite.Context()``,
``mslite.Converter()`` as in MindSpore Lite.

>>> import microspore_lite as mslite
>>> mslite.ModelType.MINDIR_LITE is __import__("ms_lite").ModelType.MINDIR_LITE
True
"""

import ms_lite

__version__ = ms_lite.__version__
__all__ = list(ms_lite.__all__)


def __getattr__(name: str):
    return getattr(ms_lite, name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
