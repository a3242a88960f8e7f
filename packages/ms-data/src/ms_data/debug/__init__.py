"""``mindspore.dataset.debug``: hooks that show the rows around each operation of a map.

Turn them on with ``ds.config.set_debug_mode(True, [hooks])``, or place one directly in a
map's operation list.

>>> import numpy as np, ms_data as ds
>>> from ms_data.debug import PrintMetaDataHook
>>> data = ds.NumpySlicesDataset(np.zeros((1, 2), np.float32), shuffle=False)
>>> rows = list(data.map([PrintMetaDataHook()]))
Column 0. The dtype is [float32]. The shape is [(2,)].
"""

from ms_data.debug.hooks import DebugHook, PrintDataHook, PrintMetaDataHook

__all__ = ["DebugHook", "PrintMetaDataHook", "PrintDataHook"]
