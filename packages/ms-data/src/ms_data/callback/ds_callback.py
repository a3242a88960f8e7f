"""DSCallback and WaitedDSCallback: user code run by ``map`` at pipeline, epoch and step ends.

A step is one row entering the map (one batch when the map follows ``batch``). Steps and
epochs count from 1; ``cur_step_num`` keeps counting across epochs. The calls run on the
pipeline's thread, ahead of training by the prefetch depth, as in MindSpore; a
``WaitedDSCallback`` holds the pipeline until training has finished the previous step.
"""

from __future__ import annotations

import threading

from ms_data import config

__all__ = ["DSCallback", "WaitedDSCallback", "DSRunContext"]


class DSRunContext:
    """Where the pipeline is: ``cur_epoch_num``, ``cur_step_num_in_epoch``, ``cur_step_num``."""

    def __init__(self):
        self.cur_epoch_num = 0
        self.cur_step_num_in_epoch = 0
        self.cur_step_num = 0


def _check_step_size(step_size):
    if not isinstance(step_size, int) or isinstance(step_size, bool):
        raise TypeError(f"DSCallback: step_size must be an int, got {step_size!r}")
    if step_size < 1:
        raise ValueError(f"DSCallback: step_size must be at least 1, got {step_size}")
    return step_size


class DSCallback:
    """Base class: override any of ``ds_begin``, ``ds_epoch_begin``, ``ds_epoch_end``,
    ``ds_step_begin``, ``ds_step_end``; step calls come every ``step_size`` steps."""

    def __init__(self, step_size=1):
        self.step_size = _check_step_size(step_size)

    def ds_begin(self, ds_run_context):
        """Called once, before the pipeline's first row."""

    def ds_epoch_begin(self, ds_run_context):
        """Called before each epoch's first row."""

    def ds_epoch_end(self, ds_run_context):
        """Called after each epoch's last row."""

    def ds_step_begin(self, ds_run_context):
        """Called before a row is mapped (steps 1, 1 + step_size, ...)."""

    def ds_step_end(self, ds_run_context):
        """Called after a row is mapped (steps 1, 1 + step_size, ...)."""


class WaitedDSCallback(DSCallback):
    """A dataset callback that is also a training callback: pass it to ``map(callbacks=)`` and
    to ``Model.train(callbacks=)``. Before each step (epoch) after the first, the pipeline
    waits until training has ended the previous one, then calls ``sync_step_begin``
    (``sync_epoch_begin``) with both contexts. Waits longer than
    ``ds.config.get_callback_timeout()`` seconds raise RuntimeError.
    """

    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.step_event = threading.Event()
        self.step_run_context = None
        self.epoch_event = threading.Event()
        self.epoch_run_context = None
        self.training_ended = False

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        """Override: runs before a dataset epoch, after the previous training epoch ended."""

    def sync_step_begin(self, train_run_context, ds_run_context):
        """Override: runs before a dataset step, after the previous training step ended."""

    @staticmethod
    def _wait(event: threading.Event, what: str) -> None:
        timeout = config.get_callback_timeout()
        success = event.wait(timeout=timeout)
        event.clear()
        if not success:
            raise RuntimeError(f"{what} timed out after {timeout} second(s) waiting for the "
                               f"training step to end (ds.config.set_callback_timeout)")

    # -- training side (mindspore.train.Callback's methods) ---------------------------------
    def epoch_end(self, run_context):
        self.epoch_run_context = run_context
        self.epoch_event.set()

    def step_end(self, run_context):
        self.step_run_context = run_context
        self.step_event.set()

    def end(self, run_context):
        """Training is over: release any wait for good."""
        self.epoch_end(run_context)
        self.step_end(run_context)
        self.training_ended = True

    # -- dataset side -----------------------------------------------------------------------
    def ds_epoch_begin(self, ds_run_context):
        if ds_run_context.cur_epoch_num > 1:
            if not self.training_ended:
                self._wait(self.epoch_event, "ds_epoch_begin")
            self.sync_epoch_begin(self.epoch_run_context, ds_run_context)

    def ds_step_begin(self, ds_run_context):
        if ds_run_context.cur_step_num > self.step_size:
            if not self.training_ended:
                self._wait(self.step_event, "ds_step_begin")
            self.sync_step_begin(self.step_run_context, ds_run_context)


class CallbackRunner:
    """Calls the callbacks of one map for one iterator (the map node keeps the counts)."""

    def __init__(self, callbacks):
        self.callbacks = callbacks
        self.context = DSRunContext()
        self.begun = False

    def epoch_begin(self, epoch: int) -> None:
        ctx = self.context
        for cb in self.callbacks if not self.begun else ():
            cb.ds_begin(ctx)
        self.begun = True
        ctx.cur_epoch_num, ctx.cur_step_num_in_epoch = epoch + 1, 0
        for cb in self.callbacks:
            cb.ds_epoch_begin(ctx)

    def epoch_end(self) -> None:
        for cb in self.callbacks:
            cb.ds_epoch_end(self.context)

    def _steps(self, method: str) -> None:
        ctx = self.context
        for cb in self.callbacks:
            if (ctx.cur_step_num_in_epoch - 1) % cb.step_size == 0:
                getattr(cb, method)(ctx)

    def step_begin(self) -> None:
        self.context.cur_step_num += 1
        self.context.cur_step_num_in_epoch += 1
        self._steps("ds_step_begin")

    def step_end(self) -> None:
        self._steps("ds_step_end")


def check_callbacks(callbacks) -> list:
    """``map``'s ``callbacks`` argument as a list of DSCallbacks."""
    if callbacks is None:
        return []
    cbs = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for cb in cbs:
        if not isinstance(cb, DSCallback):
            raise TypeError(f"map: callbacks must be DSCallback objects, got "
                            f"{type(cb).__name__}")
    return cbs
