"""``mindspore.dataset.transforms.py_transforms``:
the same operations as ``microspore.dataset.transforms``.

MindSpore 2.x keeps this module path for older scripts; here it names the same classes.
"""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data.transforms",))
