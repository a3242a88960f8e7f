"""``Callback``, ``RunContext`` and the ``cb_params`` record that ``Model`` hands to callbacks."""

from __future__ import annotations

import numpy as np

from ms_tensor import Tensor

__all__ = ["Callback", "RunContext", "CallbackParam", "CallbackList", "loss_value"]


class Callback:
    """Base class of training and evaluation callbacks.

    Override the MindSpore 2.x hooks (``on_train_begin``, ``on_train_epoch_begin``,
    ``on_train_step_begin``, ``on_train_step_end``, ``on_train_epoch_end``, ``on_train_end``
    and the ``on_eval_*`` ones) or the older names (``begin``, ``epoch_begin``,
    ``step_begin``, ``step_end``, ``epoch_end``, ``end``); by default each ``on_*`` hook calls
    the older one, so either style works. Every hook receives a ``RunContext``.

    >>> class StopAfter(Callback):
    ...     def on_train_step_end(self, run_context):
    ...         if run_context.original_args().cur_step_num >= 3:
    ...             run_context.request_stop()
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def begin(self, run_context):
        """Called once before the first epoch (older name)."""

    def epoch_begin(self, run_context):
        """Called before each epoch (older name)."""

    def epoch_end(self, run_context):
        """Called after each epoch (older name)."""

    def step_begin(self, run_context):
        """Called before each step, or each sink of steps in sink mode (older name)."""

    def step_end(self, run_context):
        """Called after each step, or each sink of steps in sink mode (older name)."""

    def end(self, run_context):
        """Called once after training or evaluation (older name)."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)


class CallbackParam(dict):
    """``cb_params``: a dict whose keys also read and write as attributes.

    ``Model.train`` fills ``train_network``, ``network``, ``optimizer``, ``loss_fn``,
    ``epoch_num``, ``batch_num``, ``cur_epoch_num``, ``cur_step_num``, ``net_outputs``,
    ``dataset_sink_mode``, ``train_dataset``, ``list_callback``, ``mode`` ("train") and
    more; ``Model.eval`` fills ``eval_network``, ``valid_dataset``, ``metrics``, ``mode``
    ("eval"), ...
    """

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"cb_params has no field {key!r}; it has "
                                 f"{sorted(self)}") from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """What a callback receives: the ``cb_params`` and a way to stop training early."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"RunContext: original_args must be a dict (cb_params), got "
                            f"{type(original_args).__name__}")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        """The ``cb_params`` of the running ``Model.train`` / ``Model.eval``."""
        return self._original_args

    def request_stop(self):
        """Ask ``Model.train`` to stop after the current step (or sink) and epoch end."""
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        return self._stop_requested


class CallbackList(Callback):
    """Several callbacks called in order, as one."""

    def __init__(self, callbacks):
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback):
            callbacks = [callbacks]
        elif not isinstance(callbacks, (list, tuple)):
            raise TypeError(f"callbacks must be a Callback or a list of Callbacks, got "
                            f"{type(callbacks).__name__}")
        for cb in callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(f"every callback must be a Callback instance, got "
                                f"{type(cb).__name__}")
        self.callbacks = list(callbacks)

    def __enter__(self):
        for cb in self.callbacks:
            cb.__enter__()
        return self

    def __exit__(self, *exc):
        for cb in self.callbacks:
            cb.__exit__(*exc)


def _broadcast(hook_name):
    def hook(self, run_context):
        for cb in self.callbacks:
            getattr(cb, hook_name)(run_context)
    hook.__name__ = hook_name
    return hook


for _hook in ("on_train_begin", "on_train_epoch_begin", "on_train_epoch_end",
              "on_train_step_begin", "on_train_step_end", "on_train_end", "on_eval_begin",
              "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
              "on_eval_step_end", "on_eval_end"):
    setattr(CallbackList, _hook, _broadcast(_hook))


def loss_value(net_outputs):
    """The loss as a Python float from a step's outputs (a Tensor, or a tuple whose first
    item is the loss); None when there is nothing numeric to read."""
    out = net_outputs
    if isinstance(out, (tuple, list)) and out:
        out = out[0]
    if isinstance(out, Tensor):
        return float(np.mean(out.asnumpy()))
    if isinstance(out, np.ndarray):
        return float(np.mean(out))
    if isinstance(out, (int, float, np.number)) and not isinstance(out, bool):
        return float(out)
    return None
