"""The ``"Ascend"`` backend of this package: an emulation of Ascend's numerics on the CPU.

It is not a device. Tensors stay numpy arrays in host memory and every operator runs on
the CPU; what changes while ``set_context(device_target="Ascend")`` is set is the
arithmetic of the Cube operators (``ms_device_ascend.cube``), which follows the
``precision_mode`` of ``ascend_config`` as an Ascend AI Core would. It says so in its
``repr`` and in a one-time ``EmulationWarning`` when the first Cube operator runs under
it (``cube``), so a loss curve from it is never mistaken for one measured on hardware.
"""

from __future__ import annotations

import numpy as np

from ms_tensor.backend import Backend

__all__ = ["AscendEmulationBackend", "EmulationWarning", "DEVICES"]

DEVICES = 8  # the NPUs of one Atlas 800 training server: device_id 0-7


class EmulationWarning(UserWarning):
    """Numbers computed by the Ascend emulation, not by Ascend hardware."""


class AscendEmulationBackend(Backend):
    """``device_target="Ascend"`` on a machine without Ascend: CPU arrays, Ascend's Cube
    numerics (see the module doc)."""

    name = "Ascend"
    array_types = ()  # it keeps the CPU's numpy arrays
    host_arrays = True
    emulated = True

    def asarray(self, data, dtype=None):
        return np.asarray(data, dtype=dtype)

    def to_host(self, array):
        return array

    def device_count(self) -> int:
        return DEVICES

    def __repr__(self) -> str:
        return "<AscendEmulationBackend Ascend (CPU emulation, not hardware)>"
