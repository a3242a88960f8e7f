"""``mindspore.communication.management``: ms-parallel's ``management`` module."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_parallel.management",))
