"""``LossMonitor`` and ``TimeMonitor``: MindSpore's per-step loss and per-epoch time lines."""

from __future__ import annotations

import math
import time

from ms_nn.train.callbacks.callback import Callback, loss_value

__all__ = ["LossMonitor", "TimeMonitor"]


def _non_negative_int(who: str, name: str, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{who}: {name} must be a non-negative int, got {value!r}")
    return value


class LossMonitor(Callback):
    """Print ``epoch: E step: S, loss is L`` every ``per_print_times`` steps.

    ``S`` is the step within the epoch. In sink mode the step hook fires once per sink, so
    the line comes at the nearest sink end. A NaN or infinite loss stops training with a
    ValueError. ``per_print_times=0`` prints nothing (the NaN check still runs).

    Args:
        per_print_times: steps between two printed lines.
    """

    def __init__(self, per_print_times: int = 1):
        self._per_print_times = _non_negative_int("LossMonitor", "per_print_times",
                                                  per_print_times)
        self._last_print_step = 0

    def on_train_begin(self, run_context):
        self._last_print_step = run_context.original_args().get("cur_step_num", 0)

    def step_end(self, run_context):
        cb = run_context.original_args()
        epoch = cb.get("cur_epoch_num", 1)
        step = cb.cur_step_num
        step_in_epoch = (step - 1) % cb.batch_num + 1 if cb.get("batch_num") else step
        loss = loss_value(cb.net_outputs)
        if loss is not None and (math.isnan(loss) or math.isinf(loss)):
            raise ValueError(f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, "
                             f"training process cannot continue, terminating training.")
        if self._per_print_times == 0:
            return
        if step < self._last_print_step:  # a new train() call restarted the count
            self._last_print_step = 0
        if step - self._last_print_step >= self._per_print_times:
            self._last_print_step = step
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context):
        metrics = run_context.original_args().get("metrics")
        if metrics:
            print(f"Eval result: epoch {run_context.original_args().cur_epoch_num}, "
                  f"metrics: {metrics}", flush=True)
        self.epoch_end(run_context)


class TimeMonitor(Callback):
    """Print ``Train epoch time: T ms, per step time: P ms`` at the end of each epoch.

    Args:
        data_size: steps per epoch used for the per-step time when ``cb_params`` has no
            ``batch_num`` (it normally has).
        data_time: also report the time spent waiting for data per step (non-sink mode).
    """

    def __init__(self, data_size=None, data_time: bool = False):
        if data_size is not None:
            _non_negative_int("TimeMonitor", "data_size", data_size)
        if not isinstance(data_time, bool):
            raise TypeError(f"TimeMonitor: data_time must be a bool, got {data_time!r}")
        self.data_size = data_size
        self.data_time = data_time
        self.epoch_time = time.perf_counter()
        self._data_wait = 0.0
        self._step_done = 0.0

    def epoch_begin(self, run_context):
        self.epoch_time = time.perf_counter()
        self._data_wait = 0.0
        self._step_done = self.epoch_time

    def on_train_step_begin(self, run_context):
        if self.data_time:
            self._data_wait += time.perf_counter() - self._step_done
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)
        self._step_done = time.perf_counter()

    def epoch_end(self, run_context):
        elapsed_ms = (time.perf_counter() - self.epoch_time) * 1000
        cb = run_context.original_args()
        steps = cb.get("batch_num") or self.data_size
        if not steps:
            raise ValueError("TimeMonitor: cannot compute the per step time: cb_params has no "
                             "batch_num and data_size was not given")
        line = (f"{cb.get('mode', '').title()} epoch time: {elapsed_ms:5.3f} ms, "
                f"per step time: {elapsed_ms / steps:5.3f} ms")
        if self.data_time and not cb.get("dataset_sink_mode", False):
            line += f" (data time: {self._data_wait * 1000 / steps:5.3f} ms)"
        print(line, flush=True)
