"""``Recorded``: remembers the constructor call of pipeline nodes, samplers and transforms.

``ds.serialize`` describes a pipeline by these calls, and ``ds.deserialize`` repeats them,
so every node, sampler and transform round-trips without a to/from-JSON pair per class.
"""

from __future__ import annotations

import functools

__all__ = ["Recorded"]


class Recorded:
    """Mixin: ``self._init_call`` is ``(args, kwargs)`` of the outermost ``__init__`` call."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_records", False):
            return

        @functools.wraps(init)
        def recording_init(self, *args, **kw):
            if "_init_call" not in self.__dict__:
                self.__dict__["_init_call"] = (args, kw)
            init(self, *args, **kw)

        recording_init._records = True
        cls.__init__ = recording_init
