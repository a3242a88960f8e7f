"""``mindspore.dataset.callback``: ms-data's dataset callbacks.

``WaitedDSCallback`` is here also a ``mindspore.train.Callback`` (as in MindSpore), so
``Model.train(callbacks=[...])`` takes it; ms-data itself cannot import ms-nn.
"""

from ms_data.callback import DSCallback, DSRunContext
from ms_data.callback import WaitedDSCallback as _DataWaitedDSCallback
from ms_nn.train.callbacks.callback import Callback

__all__ = ["DSCallback", "WaitedDSCallback", "DSRunContext"]


class WaitedDSCallback(_DataWaitedDSCallback, Callback):
    """A dataset callback synchronized with training: see ``ms_data.callback``."""
