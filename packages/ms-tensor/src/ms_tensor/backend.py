"""The backend interface: where a tensor's memory lives and how it moves.

Kernels are registered per backend name; a backend only says how to make, convert
and copy its arrays. The CPU backend keeps numpy arrays.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Backend", "CPUBackend"]


class Backend:
    """Base class of devices. Device plugins subclass it and register an instance."""

    name: str = ""
    array_types: tuple[type, ...] = ()
    # A backend that computes on the CPU's numpy arrays (an emulator): while it is the
    # context's device_target, its kernels replace the CPU's where it registers one.
    host_arrays: bool = False

    def asarray(self, data, dtype: np.dtype | None = None):
        """Make a backend array from host data (numpy array, list or scalar)."""
        raise NotImplementedError(f"backend {self.name!r} does not implement asarray")

    def to_host(self, array) -> np.ndarray:
        """Copy (or view) a backend array as a numpy array."""
        raise NotImplementedError(f"backend {self.name!r} does not implement to_host")

    def is_available(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class CPUBackend(Backend):
    name = "CPU"
    array_types = (np.ndarray,)

    def asarray(self, data, dtype=None):
        return np.asarray(data, dtype=dtype)

    def to_host(self, array):
        return array
