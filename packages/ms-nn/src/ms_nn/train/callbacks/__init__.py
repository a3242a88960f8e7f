"""Training callbacks with MindSpore's hooks and ``cb_params``."""

from __future__ import annotations

from ms_nn.train.callbacks.backup import BackupAndRestore
from ms_nn.train.callbacks.callback import Callback, CallbackList, CallbackParam, RunContext
from ms_nn.train.callbacks.checkpoint import CheckpointConfig, ModelCheckpoint
from ms_nn.train.callbacks.early_stopping import EarlyStopping
from ms_nn.train.callbacks.history import History, LearningRateScheduler
from ms_nn.train.callbacks.lambda_callback import LambdaCallback
from ms_nn.train.callbacks.monitors import LossMonitor, TimeMonitor
from ms_nn.train.callbacks.on_request_exit import OnRequestExit
from ms_nn.train.callbacks.progress import ProgressBar
from ms_nn.train.callbacks.reduce_lr import ReduceLROnPlateau

__all__ = ["Callback", "CallbackList", "CallbackParam", "RunContext", "LossMonitor",
           "TimeMonitor", "ModelCheckpoint", "CheckpointConfig", "EarlyStopping", "History",
           "LearningRateScheduler", "LambdaCallback", "ProgressBar", "ReduceLROnPlateau",
           "BackupAndRestore", "OnRequestExit"]
