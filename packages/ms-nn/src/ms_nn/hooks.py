"""Removable handles for a Cell's forward hooks."""

from __future__ import annotations

import itertools
import weakref

__all__ = ["HookHandle"]

_ids = itertools.count()


class HookHandle:
    """Returned by ``register_forward_hook``/``register_forward_pre_hook``;
    ``handle.remove()`` takes the hook off again (calling it twice is harmless)."""

    def __init__(self, hooks: dict):
        self.handle_id = next(_ids)
        self._hooks = weakref.ref(hooks)

    def remove(self) -> None:
        hooks = self._hooks()
        if hooks is not None and hooks.pop(self.handle_id, None) is not None:
            from ms_nn import cell  # cell imports this module

            cell._set_train_calls[0] += 1  # the graphs keyed on the hooks are stale

    def __enter__(self) -> HookHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
