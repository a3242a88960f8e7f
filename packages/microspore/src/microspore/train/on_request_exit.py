"""``mindspore.train.OnRequestExit`` with MINDIR export: ms-nn's callback given ms-lite's
``export`` (ms-nn cannot import ms-lite itself)."""

from ms_lite.export import export
from ms_nn.train.callbacks.on_request_exit import OnRequestExit as _OnRequestExit

__all__ = ["OnRequestExit"]


class OnRequestExit(_OnRequestExit):
    """Stop training cleanly on a signal or a config file: see ``ms_nn``'s OnRequestExit."""

    exporter = staticmethod(export)
