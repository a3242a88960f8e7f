"""``mindspore.dataset.vision.c_transforms``: the same transforms as ``microspore.dataset.vision``.

MindSpore 2.x keeps this module path for older scripts; here it names the same classes.
"""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data.vision",))
