"""``mindspore.train``: Model, callbacks, metrics, checkpoints and loss-scale managers (ms-nn).

The older module paths ``train.callback``, ``train.serialization``, ``train.model`` and
``train.metrics`` are submodules naming the same objects; ``train.summary`` holds
``SummaryRecord`` and ``SummaryCollector`` (ms-insight).
"""

from microspore._lazy import forward

__getattr__, __dir__ = forward(
    __name__, globals(), ("ms_nn.train", "ms_nn.train.model", "ms_nn.train.callbacks",
                          "ms_nn.train.metrics", "ms_nn.train.checkpoint", "ms_nn.amp",
                          "ms_nn.train.checkpoint_tools"),
    names={"SummaryRecord": "ms_insight", "SummaryCollector": "ms_insight",
           "SummaryLandscape": "ms_insight", "FlopsUtilizationCollector": "ms_insight",
           "export": "ms_lite.export", "load": "ms_lite.export"},
    submodules=("callback", "serialization", "model", "metrics", "loss_scale_manager",
                "summary", "amp", "dataset_helper"))
