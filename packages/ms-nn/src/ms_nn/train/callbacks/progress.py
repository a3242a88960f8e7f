"""``ProgressBar``: a live bar on a terminal, plain lines when output is not a TTY."""

from __future__ import annotations

import sys
import time

from ms_nn.train.callbacks.callback import Callback, loss_value

__all__ = ["ProgressBar"]


class ProgressBar(Callback):
    """Show training progress per epoch.

    On a terminal the current line is redrawn after each step (bar, step count, loss,
    steps per second); elsewhere (a log file, a pipe, CI) one plain line is written per
    epoch, so logs stay readable.

    Args:
        width: characters of the bar.
        stream: where to write (default ``sys.stdout``).
    """

    def __init__(self, width: int = 30, stream=None):
        self.width = width
        self.stream = stream

    def _out(self):
        return self.stream if self.stream is not None else sys.stdout

    def _tty(self) -> bool:
        isatty = getattr(self._out(), "isatty", None)
        return bool(isatty and isatty())

    def epoch_begin(self, run_context):
        self._start = time.perf_counter()

    def step_end(self, run_context):
        if not self._tty():
            return
        cb = run_context.original_args()
        total = cb.get("batch_num") or 0
        done = (cb.cur_step_num - 1) % total + 1 if total else cb.cur_step_num
        filled = int(self.width * done / total) if total else 0
        rate = done / max(time.perf_counter() - self._start, 1e-9)
        loss = loss_value(cb.get("net_outputs"))
        self._out().write(f"\repoch {cb.get('cur_epoch_num', 1)}/{cb.get('epoch_num', '?')} "
                          f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} "
                          f"loss {loss:.4f} {rate:.1f} step/s")
        self._out().flush()

    def epoch_end(self, run_context):
        cb = run_context.original_args()
        elapsed = time.perf_counter() - self._start
        loss = loss_value(cb.get("net_outputs"))
        loss_text = f"{loss:.4f}" if loss is not None else "n/a"
        line = (f"epoch {cb.get('cur_epoch_num', 1)}/{cb.get('epoch_num', '?')}: "
                f"{cb.get('batch_num', 0)} steps, loss {loss_text}, {elapsed:.1f} s")
        out = self._out()
        out.write(("\r" + line + " " * 20 + "\n") if self._tty() else line + "\n")
        out.flush()
