"""``mindspore.dataset.transforms``: column operations (``TypeCast``, ``OneHot``, ``Compose``)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(
    __name__, globals(), ("ms_data.transforms",),
    submodules=("transforms", "c_transforms", "py_transforms"))
