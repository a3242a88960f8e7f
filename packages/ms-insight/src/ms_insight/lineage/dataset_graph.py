"""The dataset pipeline of a run (MindSpore's ``collect_dataset_graph``), for its lineage.

A pipeline is walked through its nodes' ``children`` (ms-data's datasets have them; no
ms-data import is needed): each node becomes ``{"op_type", "params", "children"}`` with
its public settings as JSON values (a transform or sampler by its class name, an array by
its shape and dtype, never its data). ``pipeline_text`` writes one line of it for the
lineage table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["dataset_graph", "is_dataset_graph", "pipeline_text"]

_MAX_ITEMS = 16  # a longer list of settings is cut (a list of file names, say)


def _json_value(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return f"ndarray{tuple(v.shape)} {v.dtype}"
    if isinstance(v, (list, tuple)):
        items = [_json_value(x) for x in list(v)[:_MAX_ITEMS]]
        return items + (["..."] if len(v) > _MAX_ITEMS else [])
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in list(v.items())[:_MAX_ITEMS]}
    return getattr(v, "__name__", None) or type(v).__name__


def dataset_graph(dataset) -> dict | None:
    """The pipeline ending at ``dataset`` as nested dicts, or None if it has no nodes
    (a plain list of batches).

    >>> class Source:
    ...     def __init__(self):
    ...         self.children, self.dataset_dir = [], "/data/mnist"
    >>> class Batch:
    ...     def __init__(self, child):
    ...         self.children, self.batch_size, self._cache = [child], 32, object()
    >>> graph = dataset_graph(Batch(Source()))
    >>> graph["op_type"], graph["params"], graph["children"][0]["params"]
    ('Batch', {'batch_size': 32}, {'dataset_dir': '/data/mnist'})
    >>> pipeline_text(graph)
    'Source -> Batch(batch_size=32)'
    """
    if not hasattr(dataset, "children"):
        return None
    params = {k: _json_value(v) for k, v in sorted(_settings(dataset).items())}
    return {"op_type": type(dataset).__name__, "params": params,
            "children": [dataset_graph(c) for c in dataset.children]}


def _settings(node) -> dict:
    """The node's public settings; functions only where they are the setting (a map's
    operations, a batch's per_batch_map)."""
    return {k: v for k, v in vars(node).items()
            if not k.startswith("_") and k != "children"
            and (not callable(v) or k in ("operations", "sampler", "per_batch_map"))}


def is_dataset_graph(v) -> bool:
    return isinstance(v, dict) and "op_type" in v and "children" in v


def pipeline_text(graph: dict) -> str:
    """One line, sources first: ``MnistDataset -> MapDataset[Resize, Rescale] ->
    BatchDataset(batch_size=32)``; branches in parentheses, separated by ``|``."""
    params = graph.get("params", {})
    label = graph["op_type"]
    if params.get("operations"):
        ops = params["operations"]
        label += f"[{', '.join(map(str, ops if isinstance(ops, list) else [ops]))}]"
    if "batch_size" in params:
        label += f"(batch_size={params['batch_size']})"
    children = [pipeline_text(c) for c in graph.get("children", [])]
    if not children:
        return label
    head = children[0] if len(children) == 1 else f"({' | '.join(children)})"
    return f"{head} -> {label}"
