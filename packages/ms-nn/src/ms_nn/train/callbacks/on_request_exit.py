"""``OnRequestExit``: stop training cleanly when asked (a signal, or a JSON config file).

The signal handler is installed by ``on_train_begin``/``on_eval_begin`` of a callback the
user made and passed to ``Model``, never at import or construction, and the previous
handler is put back by ``on_train_end``/``on_eval_end``, or by ``__exit__`` when training
raises (``Model`` runs its callbacks as context managers). Only the main thread can
install handlers, so a ``Model.train`` running on another thread raises a clear error.

On a request, the step that is running finishes, the training network is saved to
``{directory}/rank_{device_id}/{file_name}_train.ckpt`` (with ``epoch_num``, ``step_num``,
``batch_num``) and, with ``save_mindir``, the network (``cb_params.network``, on the last
batch's inputs less the label when ``Model`` has a loss) is exported as MINDIR by the
``exporter`` the class is given (microspore's ``OnRequestExit`` gives ms-lite's
``export``; ms-nn alone has none); then training stops. MindSpore exports the training
network itself; ms-lite exports pure functions only, not an optimizer's in-place updates.
A later run with the same callback first loads that checkpoint, as MindSpore's does.
MindSpore 2.10 acts on the request only with ``MS_ENABLE_GRACEFUL_EXIT=1`` and a
``graceful_exit`` parameter in the network, else just saves at the end of all epochs;
here every request stops training after the current step.
"""

from __future__ import annotations

import json
import os
import signal
import threading

from ms_nn.train.callbacks.callback import Callback
from ms_nn.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from ms_tensor.context import get_context

__all__ = ["OnRequestExit"]


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise ValueError(f"OnRequestExit: {name} must be a bool, got {value!r}")
    return value


class OnRequestExit(Callback):
    """Stop after the current step on signal ``sig`` or ``{"GracefulExit": 1}`` in
    ``config_file``, saving the checkpoint (and MINDIR) first (see the module doc)."""

    #: ``export(net, *inputs, file_name=, file_format="MINDIR")``; None: no MINDIR here.
    exporter = None

    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./",
                 config_file=None, sig=signal.SIGTERM):
        super().__init__()
        self.save_ckpt = _check_bool("save_ckpt", save_ckpt)
        self.save_mindir = _check_bool("save_mindir", save_mindir)
        if not isinstance(file_name, str) or not isinstance(directory, str):
            raise ValueError(f"OnRequestExit: file_name and directory must be str, got "
                             f"{file_name!r}, {directory!r}")
        if not isinstance(sig, int) or isinstance(sig, bool):
            raise ValueError(f"OnRequestExit: sig must be an int (a signal number), got {sig!r}")
        if hasattr(signal, "SIGKILL") and sig == signal.SIGKILL:
            raise ValueError("Not support send exit request by signal SIGKILL.")
        if save_mindir and self.exporter is None:
            raise ValueError("OnRequestExit: save_mindir needs an exporter (ms-lite's export; "
                             "use microspore.train.OnRequestExit), or pass save_mindir=False")
        self.sig, self.config_file, self.key = sig, config_file, "GracefulExit"
        self.exit = False
        self._previous = None  # the handler to restore, while ours is installed
        self._installed = False
        folder = os.path.join(directory, f"rank_{get_context('device_id')}")
        self.train_name = os.path.join(folder, f"{file_name}_train")
        self.eval_name = os.path.join(folder, f"{file_name}_eval")

    def __exit__(self, *exc):
        self._restore()  # training raised before on_train_end: do not leave our handler

    # -- the handler ----------------------------------------------------------------------
    def _handle_signal(self, signum, frame):
        self.exit = True

    def _install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("OnRequestExit: signal handlers can only be installed from the "
                               "main thread; run Model.train/eval there")
        self._previous = signal.signal(self.sig, self._handle_signal)
        self._installed = True

    def _restore(self) -> None:
        if self._installed:
            signal.signal(self.sig, self._previous if self._previous is not None
                          else signal.SIG_DFL)
            self._installed, self._previous = False, None

    def _requested(self) -> bool:
        if self.exit:
            return True
        if self.config_file is None or not os.path.isfile(self.config_file):
            return False
        try:
            with open(self.config_file, encoding="utf-8") as f:
                info = json.load(f)
        except (OSError, json.JSONDecodeError):
            return False
        self.exit = isinstance(info, dict) and info.get(self.key) == 1
        return self.exit

    # -- saving -----------------------------------------------------------------------------
    def _save(self, net, name: str, element, cb_params) -> None:
        os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
        if self.save_ckpt:
            append = {k: cb_params.get(k) for k in ("epoch_num", "step_num", "batch_num")
                      if cb_params.get(k) is not None}
            if "cur_epoch_num" in cb_params:
                append["epoch_num"] = cb_params["cur_epoch_num"]
            if "cur_step_num" in cb_params:
                append["step_num"] = cb_params["cur_step_num"]
            save_checkpoint(net, name + ".ckpt", append_dict=append or None)
        if self.save_mindir and element is not None:
            inputs = list(element) if isinstance(element, (list, tuple)) else [element]
            if cb_params.get("loss_fn") is not None and len(inputs) > 1:
                inputs = inputs[:-1]  # the label goes to the loss, not the network
            type(self).exporter(cb_params.get("network", net), *inputs, file_name=name,
                                file_format="MINDIR")

    @staticmethod
    def _load(net, path: str) -> None:
        load_param_into_net(net, load_checkpoint(path))

    # -- training ---------------------------------------------------------------------------
    def on_train_begin(self, run_context):
        self.exit = False
        self._install()
        if self.save_ckpt and os.path.isfile(self.train_name + ".ckpt"):
            self._load(run_context.original_args().train_network, self.train_name + ".ckpt")

    def on_train_step_end(self, run_context):
        if self._requested():
            run_context.request_stop()

    def on_train_epoch_end(self, run_context):
        self.on_train_step_end(run_context)

    def on_train_end(self, run_context):
        try:
            if self.exit:
                p = run_context.original_args()
                self._save(p.train_network, self.train_name, p.get("train_dataset_element"), p)
        finally:
            self._restore()

    # -- evaluation -------------------------------------------------------------------------
    def on_eval_begin(self, run_context):
        self.exit = False
        self._install()
        if not self.save_ckpt:
            return
        net = run_context.original_args().eval_network
        for path in (self.eval_name + ".ckpt", self.train_name + ".ckpt"):
            if os.path.isfile(path):
                self._load(net, path)
                break

    def on_eval_step_end(self, run_context):
        if self._requested():
            run_context.request_stop()

    def on_eval_end(self, run_context):
        try:
            if self.exit:
                p = run_context.original_args()
                self._save(p.eval_network, self.eval_name, p.get("eval_dataset_element"), p)
        finally:
            self._restore()
