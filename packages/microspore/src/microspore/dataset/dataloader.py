"""``mindspore.dataset.dataloader``: ms-data's ``ms_data.dataloader``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data.dataloader",))
