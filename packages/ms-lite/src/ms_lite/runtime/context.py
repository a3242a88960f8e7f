"""MindSpore Lite's ``Context``: where and with how many threads a model runs."""

from __future__ import annotations

__all__ = ["Context", "CPUDeviceInfo"]

_TARGETS = ("cpu",)


class CPUDeviceInfo:
    """``context.cpu``: ``thread_num`` (read when the model is built; 0: the kernels'
    default) bounds the threads of ms-lite's own int8 and float32 kernels, and, for the
    duration of each ``predict`` and on the calling thread only, ms-ops' kernels and MKL's
    products (``ms_ops.kernels.threads.scoped``): ``set_context``, the environment and
    other threads never see it. numpy's small products are OpenBLAS's, one thread at
    those sizes.
    ``precision_mode`` is kept for MindSpore Lite's API: the kernels compute float32
    either way (an fp16 model's weights are widened once when it is built)."""

    def __init__(self):
        self.thread_num = 0  # 0: the kernels' default
        self.thread_affinity_mode = 0
        self.thread_affinity_core_list = []
        self.precision_mode = "enforce_fp32"
        self.inter_op_parallel_num = 1

    def __setattr__(self, name, value):
        if name == "thread_num" and (not isinstance(value, int) or isinstance(value, bool)
                                     or value < 0):
            raise ValueError(f"Context.cpu.thread_num must be an int >= 0, got {value!r}")
        if name == "precision_mode" and value not in ("enforce_fp32", "preferred_fp16"):
            raise ValueError("Context.cpu.precision_mode must be 'enforce_fp32' or "
                             f"'preferred_fp16', got {value!r}")
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        return (f"CPUDeviceInfo(thread_num={self.thread_num}, "
                f"precision_mode={self.precision_mode!r})")


class Context:
    """``ms_lite.Context()``: ``target = ["cpu"]`` (the only device of this runtime) and
    ``cpu`` settings.

    >>> ctx = Context()
    >>> ctx.target = ["cpu"]
    >>> ctx.cpu.thread_num = 2
    >>> ctx
    Context(target=['cpu'], cpu=CPUDeviceInfo(thread_num=2, precision_mode='enforce_fp32'))
    """

    def __init__(self):
        self._target = ["cpu"]
        self.cpu = CPUDeviceInfo()

    @property
    def target(self) -> list[str]:
        return list(self._target)

    @target.setter
    def target(self, value) -> None:
        if isinstance(value, str) or not all(isinstance(t, str) for t in value):
            raise TypeError(f"Context.target must be a list of device names, got {value!r}")
        bad = [t for t in value if t.lower() not in _TARGETS]
        if bad or not value:
            raise ValueError(f"Context.target: this runtime runs on {list(_TARGETS)}, got "
                             f"{list(value)!r}")
        self._target = [t.lower() for t in value]

    def __repr__(self) -> str:
        return f"Context(target={self._target}, cpu={self.cpu!r})"
