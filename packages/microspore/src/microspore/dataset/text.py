"""``mindspore.dataset.text``: ms-data's ``ms_data.text``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data.text",))
