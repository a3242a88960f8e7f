"""MindSpore 2.5's device functions: ``ms.set_device``, ``ms.get_current_device``,
``ms.set_deterministic`` and ``ms.run_check``, spelled over ``set_context``."""

from __future__ import annotations

from dataclasses import dataclass

from ms_tensor.context import get_context, set_context

__all__ = ["set_device", "get_current_device", "set_deterministic", "run_check",
           "DeviceInfo"]


@dataclass(frozen=True)
class DeviceInfo:
    """What ``get_current_device`` returns: the target and the device's number."""

    device_target: str
    device_id: int


def set_device(device_target: str, device_id: int | None = None) -> None:
    """Run on ``device_target`` ("CPU", or a registered backend) and its ``device_id``."""
    set_context(device_target=device_target,
                **({} if device_id is None else {"device_id": device_id}))


def get_current_device() -> DeviceInfo:
    """The device target and id now in use."""
    return DeviceInfo(get_context("device_target"), get_context("device_id"))


def set_deterministic(deterministic: bool) -> None:
    """Make every kernel give the same bits on every run (``set_context(deterministic=)``)."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"set_deterministic: expected a bool, got {deterministic!r}")
    set_context(deterministic="ON" if deterministic else "OFF")


def run_check() -> None:
    """Check the installation as MindSpore's does: multiply two tensors and say whether the
    answer is right."""
    import importlib.metadata as md

    import numpy as np

    from ms_tensor import registry
    from ms_tensor.tensor import Tensor

    try:
        print(f"microspore version: {md.version('microspore')}")
    except md.PackageNotFoundError:
        print(f"ms-tensor version: {md.version('ms-tensor')}")
    mul = registry.load().lookup("function", "mul")
    if mul is None:
        print("The result of multiplication calculation is wrong: no operator 'mul' is "
              "installed (install ms-ops)")
        return
    try:
        got = mul(Tensor(np.array([1.0, 2.0, 3.0], np.float32)),
                  Tensor(np.array([4.0, 5.0, 6.0], np.float32))).asnumpy()
        ok = np.array_equal(got, [4.0, 10.0, 18.0])
    except Exception as e:  # the point is to report any failure, whatever it is
        print(f"The result of multiplication calculation is wrong: {type(e).__name__}: {e}")
        return
    target = get_context("device_target")
    if ok:
        print(f"The result of multiplication calculation is correct, microspore has been "
              f"installed on platform [{target}] successfully!")
    else:
        print(f"The result of multiplication calculation is wrong: got {got.tolist()}")
