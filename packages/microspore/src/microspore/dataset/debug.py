"""``mindspore.dataset.debug``: ms-data's ``ms_data.debug``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data.debug",))
