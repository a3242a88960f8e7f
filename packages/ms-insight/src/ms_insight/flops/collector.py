"""``FlopsUtilizationCollector``: MindSpore's model FLOPs utilization callback.

The first step of a run is watched through ms-ops' kernel observer (the same door the
profiler uses, so PyNative and GRAPH_MODE are counted alike): every kernel call of the
step adds its FLOPs (``ms_insight.flops.rules``), per operator. Then each step's time
gives the model FLOPs utilization, ``flops / (step time * computility)``. Hardware FLOPs
would add recomputation; nothing is recomputed here, so they equal the model's. One
process runs the whole model, so "full" and "shard" FLOPs are equal too.
"""

from __future__ import annotations

import math
import time

from ms_insight.flops.rules import flops
from ms_nn.train.callbacks.callback import Callback

__all__ = ["FlopsUtilizationCollector"]


class FlopsUtilizationCollector(Callback):
    """Count a step's FLOPs and print the model FLOPs utilization (MFU).

    Args:
        data_size: print every ``data_size`` steps (the first step, then every
            ``data_size``-th after it).
        computility: the peak FLOP/s of the device the MFU is measured against (1: not
            given; then, with ``enable_ma_collector``, nothing is printed).
        full_flops: report the full model's FLOPs (True) or this device's shard's.
        enable_ma_collector: also write ``flops_rank_0.txt`` / ``time_step_rank_0.txt``
            (Prometheus-style lines) into ``$MA_LOG_DIR`` (default ``./``).

    After the first step: ``full_model_flops`` (and ``*_hardware_flops``,
    ``shard_*``), ``op_flops`` (FLOPs per operator), ``mfu`` / ``hfu`` of the last step.
    """

    def __init__(self, data_size, computility=1, full_flops=True, enable_ma_collector=False):
        super().__init__()
        if not isinstance(data_size, int) or isinstance(data_size, bool) or data_size <= 0:
            raise TypeError(f"FlopsUtilizationCollector: data_size must be a positive int, "
                            f"got {data_size!r}")
        for name, value in (("full_flops", full_flops),
                            ("enable_ma_collector", enable_ma_collector)):
            if not isinstance(value, bool):
                raise TypeError(f"FlopsUtilizationCollector: {name} must be a bool, got "
                                f"{value!r}")
        if not isinstance(computility, (int, float)) or isinstance(computility, bool) \
                or not computility > 0:
            raise ValueError(f"FlopsUtilizationCollector: computility (peak FLOP/s) must be "
                             f"a positive number, got {computility!r}")
        self.data_size = data_size
        self.computility = computility
        self.full_flops = full_flops
        self.ma = enable_ma_collector
        self.verbose = not (computility == 1 and enable_ma_collector)
        self.op_flops: dict[str, int] = {}
        self.full_model_flops = self.full_hardware_flops = 0
        self.shard_model_flops = self.shard_hardware_flops = 0
        self.mfu = self.hfu = 0.0
        self.mfu_calculated = False
        self._counting = False
        self._previous = None
        self._last_step = None
        self._t = 0.0

    # -- counting: a kernel observer for the first step ----------------------------------
    def _observe(self, name, kernel):
        inner = kernel if self._previous is None else self._previous(name, kernel)
        counts = self.op_flops

        def counted(*args, **kwargs):
            result = inner(*args, **kwargs)
            n = flops(name, args, kwargs, result)
            if n:
                counts[name] = counts.get(name, 0) + n
            return result
        return counted

    def _start_counting(self) -> None:
        from ms_ops import dispatch

        self._previous = dispatch.set_kernel_observer(self._observe)
        self._counting = True

    def _stop_counting(self) -> None:
        from ms_ops import dispatch

        if self._counting:
            dispatch.set_kernel_observer(self._previous)
            self._counting = False

    # -- the callback ----------------------------------------------------------------
    def step_begin(self, run_context):
        cb = run_context.original_args()
        if self._last_step is None:
            self._last_step = cb.get("cur_step_num", 0) or 0
        if not self.mfu_calculated and not self._counting:
            self._start_counting()
        self._t = time.perf_counter()

    def step_end(self, run_context):
        ms = (time.perf_counter() - self._t) * 1000
        cb = run_context.original_args()
        step = cb.get("cur_step_num", 0) or 0
        covered = max(1, step - (self._last_step or 0))  # a sink step runs several
        self._last_step = step
        ms /= covered
        if not self.mfu_calculated:
            self._stop_counting()
            self.op_flops = {k: v // covered for k, v in self.op_flops.items()}
            total = sum(self.op_flops.values())
            self.full_model_flops = self.full_hardware_flops = total
            self.shard_model_flops = self.shard_hardware_flops = total
            self.mfu_calculated = True
            if self.ma:
                self._write_ma("flops", f'flops{{type="model_flops", rank_id="0"}} {total} '
                               f'{_ms_now()}\nflops{{type="hardware_flops", rank_id="0"}} '
                               f'{total} {_ms_now()}\n', "w")
            if self.verbose:
                print(f"Full model flops is {total}, Full hardware flops is {total}, "
                      f"Shard model flops is {total}, Shard hardware flops is {total}.",
                      flush=True)
        self.mfu = self.hfu = self.full_model_flops / (ms / 1000 * self.computility) \
            if ms > 0 else 0.0
        if self.ma:
            self._write_ma("time_step", f'time_monitor{{type="per_step_time", rank_id="0"}} '
                           f'{ms} {_ms_now()}\n', "a")
        # the first step and every data_size-th after it; a sink step covering one prints
        if self.verbose and (step - 1) // self.data_size > (step - covered - 1) // self.data_size:
            mode = str(cb.get("mode", "train")).title()
            print(f"{mode} per step time: {ms:5.3f} ms mfu:{_floored(self.mfu)} "
                  f"hfu:{_floored(self.hfu)}", flush=True)

    def end(self, run_context):
        self._stop_counting()  # a run that ended inside its first step

    def _write_ma(self, kind: str, text: str, mode: str) -> None:
        import os

        path = os.path.join(os.path.realpath(os.environ.get("MA_LOG_DIR", "./")),
                            f"{kind}_rank_0.txt")
        with open(path, mode) as f:
            f.write(text)


def _ms_now() -> int:
    return int(round(time.time() * 1000))


def _floored(share: float) -> str:
    """MindSpore's percentage: floored to two decimals.

    >>> _floored(0.48599)
    '48.59%'
    """
    return f"{math.floor(share * 10 ** 4) / 10 ** 2:.2f}%"
