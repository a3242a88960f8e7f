"""``mindspore.dataset.utils``: ms-data's ``ms_data.utils``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data.utils",))
