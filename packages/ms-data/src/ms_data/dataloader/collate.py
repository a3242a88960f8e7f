"""``default_collate`` and ``default_convert``: samples to batched Tensors, PyTorch's rules.

Arrays, Tensors and numbers are stacked into one Tensor (ints become int64, floats
float64, as numpy reads them); tuples/lists collate position by position (into a list),
dicts key by key; strings and other objects stay a list.
"""

from __future__ import annotations

import numpy as np

from ms_tensor import wrap

__all__ = ["default_collate", "default_convert"]


def _is_array(x) -> bool:
    return isinstance(x, np.ndarray) or hasattr(x, "asnumpy")


def default_collate(batch: list):
    """One batch from a list of samples."""
    first = batch[0]
    if _is_array(first):
        arrays = [x.asnumpy() if hasattr(x, "asnumpy") else x for x in batch]
        if first.dtype.kind in "USO" if isinstance(first, np.ndarray) else False:
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, "
                            f"numbers, dicts or lists; found {first.dtype}")
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise RuntimeError(f"default_collate: stack expects each tensor to be equal "
                               f"size, but got {sorted(shapes)}")
        return wrap(np.stack(arrays))
    if isinstance(first, (bool, np.bool_)):
        return wrap(np.asarray(batch, dtype=np.bool_))
    if isinstance(first, (int, np.integer)):
        return wrap(np.asarray(batch, dtype=np.int64))
    if isinstance(first, (float, np.floating)):
        return wrap(np.asarray(batch, dtype=np.float64))
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, dict):
        return {k: default_collate([sample[k] for sample in batch]) for k in first}
    if isinstance(first, (tuple, list)):
        if len({len(sample) for sample in batch}) > 1:
            raise RuntimeError("default_collate: each element in list of batch should be of "
                               "equal size")
        return [default_collate(list(items)) for items in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {type(first).__name__}")


def default_convert(data):
    """One sample's arrays as Tensors (``batch_size=None``), recursing into containers."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
        return wrap(data)
    if isinstance(data, dict):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return [default_convert(d) for d in data]
    return data
