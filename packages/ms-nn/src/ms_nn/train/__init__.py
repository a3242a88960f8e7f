"""Training: ``Model``, callbacks, metrics and checkpoints (MindSpore's ``mindspore.train``)."""

from __future__ import annotations

from ms_nn.train import callbacks, metrics
from ms_nn.train.callbacks import (
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LambdaCallback,
    LearningRateScheduler,
    LossMonitor,
    ModelCheckpoint,
    ProgressBar,
    RunContext,
    TimeMonitor,
)
from ms_nn.train.checkpoint import (
    async_ckpt_thread_status,
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
    wait_async_saves,
)
from ms_nn.train.data_sink import DatasetHelper, connect_network_with_dataset, data_sink
from ms_nn.train.metrics import (
    F1,
    MAE,
    MSE,
    Accuracy,
    ConfusionMatrix,
    Fbeta,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
    names,
    rearrange_inputs,
)
from ms_nn.train.model import Model

__all__ = ["Model", "callbacks", "metrics", "Callback", "RunContext", "LossMonitor",
           "TimeMonitor", "ModelCheckpoint", "CheckpointConfig", "EarlyStopping", "History",
           "LearningRateScheduler", "LambdaCallback", "ProgressBar", "Metric", "rearrange_inputs",
           "Accuracy", "Precision", "Recall", "Fbeta", "F1", "Loss", "TopKCategoricalAccuracy",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "ConfusionMatrix", "MAE", "MSE",
           "names",
           "get_metric_fn", "save_checkpoint", "load_checkpoint", "load_param_into_net",
           "wait_async_saves", "async_ckpt_thread_status", "data_sink", "DatasetHelper",
           "connect_network_with_dataset"]
