"""``mindspore.runtime``: synchronization and device-memory queries (``ms_tensor.runtime``)."""

from ms_tensor.runtime import *  # noqa: F403
from ms_tensor.runtime import __all__  # noqa: F401
