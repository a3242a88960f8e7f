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
           "export": "ms_lite.export", "load": "ms_lite.export",
           "OnRequestExit": "microspore.train.on_request_exit",
           "build_searched_strategy": "ms_parallel.auto.strategy_file",
           "restore_group_info_list": "ms_parallel.auto.group_info",
           "load_distributed_checkpoint": "ms_parallel.auto.transform",
           "get_ckpt_path_with_strategy": "ms_parallel.auto.transform"},
    submodules=("callback", "serialization", "model", "metrics", "loss_scale_manager",
                "summary", "amp", "dataset_helper"))
