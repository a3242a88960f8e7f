"""``mindspore.nn``: Cell, containers, layers, losses, optimizers, wrappers (ms-nn).

Everything ``ms_nn`` exports (layers, losses, optimizers, wrappers), plus the metrics
(MindSpore 2.x keeps ``nn.Accuracy`` beside ``train.Accuracy``); ms-nn loads on first
access.
"""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn", "ms_nn.train.metrics"),
                               {"GraphCell": "ms_lite.export",
                                "DistributedGradReducer": "ms_parallel.grad_reducer"})
