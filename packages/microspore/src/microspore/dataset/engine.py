"""``mindspore.dataset.engine``: ms-data's ``ms_data.engine``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data.engine",))
