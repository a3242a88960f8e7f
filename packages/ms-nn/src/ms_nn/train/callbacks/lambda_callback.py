"""``LambdaCallback``: a callback made of plain functions, one per hook."""

from __future__ import annotations

from ms_nn.train.callbacks.callback import Callback

__all__ = ["LambdaCallback"]

_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
          "on_train_step_end", "on_train_begin", "on_train_end", "on_eval_epoch_begin",
          "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_begin",
          "on_eval_end")


class LambdaCallback(Callback):
    """Run ``fn(run_context)`` at the hooks given by name, as MindSpore's LambdaCallback.

    >>> cb = LambdaCallback(on_train_epoch_end=lambda ctx: print(ctx.original_args().cur_epoch_num))
    """

    def __init__(self, **hooks):
        unknown = sorted(set(hooks) - set(_HOOKS))
        if unknown:
            raise TypeError(f"LambdaCallback: unknown hooks {unknown}; hooks are "
                            f"{', '.join(_HOOKS)}")
        for name, fn in hooks.items():
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"LambdaCallback: {name} must be callable, got "
                                    f"{type(fn).__name__}")
                setattr(self, name, fn)
