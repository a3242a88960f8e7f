"""``mindspore.dataset.vision``: image transforms (``Resize``, ``Rescale``, ``HWC2CHW``,
``Inter``)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(
    __name__, globals(), ("ms_data.vision",),
    submodules=("transforms", "c_transforms", "py_transforms", "utils"))
