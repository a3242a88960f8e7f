"""``ReduceLROnPlateau``: multiply the learning rate by ``factor`` when a monitored value
has not improved for ``patience`` epochs (MindSpore's rules, cooldown and floor)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ms_nn.train.callbacks.callback import Callback, loss_value
from ms_nn.train.callbacks.early_stopping import _SMALLER_BETTER
from ms_tensor import Parameter, Tensor

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(Callback):
    """At each epoch's end read ``monitor`` (``"loss"``: the training loss; otherwise
    ``cb_params.eval_results``, e.g. ``"eval_loss"`` from ``Model.fit``); after
    ``patience`` epochs without an improvement of more than ``min_delta``, set the
    optimizer's learning rate to ``max(lr * factor, min_lr)`` and wait ``cooldown``
    epochs. The optimizer needs one fixed learning rate (a Parameter), as in MindSpore.
    """

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False,
                 mode="auto", min_delta=1e-4, cooldown=0, min_lr=0):
        if not isinstance(monitor, str):
            raise TypeError(f"ReduceLROnPlateau: monitor must be a str, got {monitor!r}")
        if not 0.0 < factor < 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be in (0, 1), got {factor!r}")
        for name, v in (("patience", patience), ("cooldown", cooldown)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"ReduceLROnPlateau: {name} must be a non-negative int, got "
                                 f"{v!r}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"ReduceLROnPlateau: mode should be 'auto', 'min' or 'max', got "
                             f"{mode!r}")
        self.monitor, self.factor, self.patience = monitor, float(factor), patience
        self.verbose, self.mode, self.min_delta = verbose, mode, abs(min_delta)
        self.cooldown, self.min_lr = cooldown, min_lr
        self._minimize = mode == "min" or (mode == "auto" and monitor in _SMALLER_BETTER)
        self.on_train_begin(None)

    def on_train_begin(self, run_context):
        self.cooldown_counter = self.wait = 0
        self.best = math.inf if self._minimize else -math.inf

    def _improved(self, current):
        if self._minimize:
            return current < self.best - self.min_delta
        return current > self.best + self.min_delta

    def _current(self, cb):
        if self.monitor == "loss":
            return loss_value(cb.get("net_outputs"))
        results = cb.get("eval_results") or {}
        value = results.get(self.monitor)
        if value is None:
            warnings.warn(f"ReduceLROnPlateau is conditioned on {self.monitor!r}, which is not "
                          f"available; available: {sorted({'loss', *results})}", stacklevel=2)
            return None
        return float(np.asarray(value))

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        lr = getattr(cb.get("optimizer"), "learning_rate", None)
        if not isinstance(lr, Parameter):
            raise ValueError("ReduceLROnPlateau needs an optimizer with one fixed learning rate "
                             "(not a schedule, a list or groups)")
        current = self._current(cb)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(np.asarray(lr.asnumpy()).reshape(-1)[0])
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    lr.set_data(Tensor(np.full(lr.shape, new, lr.asnumpy().dtype)))
                    if self.verbose:
                        print(f"Epoch {cb.get('cur_epoch_num', 0):05d}: ReduceLROnPlateau "
                              f"reducing learning rate to {new}.")
                self.cooldown_counter, self.wait = self.cooldown, 0
