"""``mindspore.dataset.vision.utils``: the enums (``Inter``, ``Border``, ``ConvertMode``)."""

from ms_data.vision import Border, ConvertMode, Inter

__all__ = ["Border", "ConvertMode", "Inter"]
