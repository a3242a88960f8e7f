"""``mindspore.dataset.core``: ms-data's ``ms_data.core``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data.core",))
