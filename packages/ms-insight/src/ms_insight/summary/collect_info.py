"""What the collector reads off a training run: names, learning rate, dataset facts."""

from __future__ import annotations

import numpy as np

__all__ = ["network_name", "learning_rate", "dataset_info"]

_PATH_ATTRS = ("dataset_dir", "dataset_file", "dataset_files")


def network_name(obj) -> str | None:
    """A Cell's / optimizer's class name (``WithLossCell``'s backbone's); None for None."""
    if obj is None:
        return None
    backbone = getattr(obj, "_backbone", None)
    return type(backbone if backbone is not None else obj).__name__


def learning_rate(optimizer) -> float | None:
    """The optimizer's current learning rate (the first group's, with group rates)."""
    if optimizer is None or not hasattr(optimizer, "get_lr"):
        return None
    lr = optimizer.get_lr()
    if isinstance(lr, (tuple, list)):
        lr = lr[0] if lr else None
    if lr is None:
        return None
    a = np.asarray(lr.asnumpy() if hasattr(lr, "asnumpy") else lr, dtype=np.float64)
    return float(a.reshape(-1)[0]) if a.size else None


def _paths(dataset) -> list[str]:
    """Source paths found by walking the pipeline (``children``) down to its sources."""
    out, todo, seen = [], [dataset], set()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for attr in _PATH_ATTRS:
            v = getattr(node, attr, None)
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                out.extend(str(x) for x in v)
        todo.extend(getattr(node, "children", None) or ())
    return out


def dataset_info(dataset) -> dict:
    """``{"path", "size", "batch_size"}`` of a dataset, as far as it tells them: ``size``
    is the number of batches per epoch (``get_dataset_size``), or ``len`` of a list."""
    if dataset is None:
        return {}
    info: dict = {}
    paths = _paths(dataset)
    if paths:
        info["path"] = paths[0] if len(paths) == 1 else paths
    if hasattr(dataset, "get_dataset_size"):
        info["size"] = int(dataset.get_dataset_size())
        if hasattr(dataset, "get_batch_size"):
            info["batch_size"] = int(dataset.get_batch_size())
    elif hasattr(dataset, "__len__"):
        info["size"] = len(dataset)
    if "size" in info and "batch_size" in info:
        info["samples"] = info["size"] * info["batch_size"]
    return info
