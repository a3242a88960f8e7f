"""``mindspore.dataset``: ms-data's pipelines (``ms.dataset.MnistDataset(...).map(...)``).

``vision`` and ``transforms`` are subpackages here, with MindSpore's older module paths
(``dataset.vision.c_transforms``, ``dataset.transforms.py_transforms``, ...) beside them,
all re-exporting the same ms-data classes.
"""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_data",),
                               names={"WaitedDSCallback": "microspore.dataset.callback"},
                               submodules=("vision", "transforms", "text", "engine", "core",
                                           "utils", "debug", "callback", "dataloader"))
