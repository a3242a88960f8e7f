"""``EarlyStopping``: stop training when a monitored value stops improving."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ms_nn.train.callbacks.callback import Callback, loss_value

__all__ = ["EarlyStopping"]

# Values where smaller is better when mode="auto".
_SMALLER_BETTER = {"hausdorff_distance", "mae", "mse", "loss", "eval_loss",
                   "root_mean_square_distance", "mean_surface_distance"}


class EarlyStopping(Callback):
    """Stop when ``monitor`` has not improved for ``patience`` epochs.

    ``monitor="loss"`` reads the training loss at the epoch's end; any other name is looked
    up in ``cb_params.eval_results`` (``Model.fit`` fills it with ``"eval_loss"`` and the
    metrics).

    Args:
        monitor: the value to watch.
        min_delta: the least change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: print the epoch training stopped at.
        mode: ``"min"``, ``"max"`` or ``"auto"`` (from the name: losses and distances go down).
        baseline: training also stops if the value does not beat this.
        restore_best_weights: put back the weights of the best epoch when stopping.
    """

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto",
                 baseline=None, restore_best_weights=False):
        if not isinstance(monitor, str):
            raise TypeError(f"EarlyStopping: monitor must be a str, got {monitor!r}")
        if not isinstance(patience, int) or isinstance(patience, bool) or patience < 0:
            raise ValueError(f"EarlyStopping: patience must be a non-negative int, got "
                             f"{patience!r}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode should be 'auto', 'min' or 'max', but got "
                             f"{mode!r}")
        self.monitor = monitor
        self.min_delta = abs(min_delta)
        self.patience = patience
        self.verbose = verbose
        self.mode = mode
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self._minimize = mode == "min" or (mode == "auto" and monitor in _SMALLER_BETTER)
        self._reset()

    def _reset(self):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = math.inf if self._minimize else -math.inf
        self.best_weights_param_dict = None

    def _improved(self, current, reference) -> bool:
        if self._minimize:
            return current < reference - self.min_delta
        return current > reference + self.min_delta

    def on_train_begin(self, run_context):
        self._reset()

    def _current(self, cb):
        if self.monitor == "loss":
            return loss_value(cb.get("net_outputs"))
        results = cb.get("eval_results") or {}
        value = results.get(self.monitor)
        if value is None:
            warnings.warn(f"EarlyStopping is conditioned on {self.monitor!r}, which is not "
                          f"available; available: {sorted({'loss', *results})}", stacklevel=2)
            return None
        value = np.asarray(value)
        if value.shape != ():
            raise ValueError(f"EarlyStopping only supports a scalar monitor; "
                             f"{self.monitor!r} has shape {value.shape}")
        return float(value)

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        current = self._current(cb)
        if current is None:
            return
        network = cb.get("train_network") or cb.get("network")
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = _snapshot(network)
        self.wait += 1
        if self._improved(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = _snapshot(network)
            if self.baseline is None or self._improved(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb.get("cur_epoch_num", 0)
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                from ms_nn.train.checkpoint import load_param_into_net
                load_param_into_net(network, self.best_weights_param_dict)

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")


def _snapshot(network) -> dict:
    """Copies of every parameter, keyed by name."""
    return {p.name: p.clone() for p in network.get_parameters()}
