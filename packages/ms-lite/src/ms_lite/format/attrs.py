"""Operator attributes as JSON: what a kernel receives, kept exact through a file.

JSON has no tuples, dtypes or arrays, so those are tagged: ``{"t": [...]}`` is a tuple,
``{"dtype": "float32"}`` a microspore dtype, ``{"array": [...], "dtype": ...,
"shape": [...]}`` a small numpy array. Lists stay lists.

>>> decode(encode({"kernel_size": (5, 5), "pad_mode": "valid", "axis": [0, 1]}))
{'kernel_size': (5, 5), 'pad_mode': 'valid', 'axis': [0, 1]}
"""

from __future__ import annotations

import json

import numpy as np

__all__ = ["encode", "decode"]


def _plain(v):
    if isinstance(v, tuple):
        return {"t": [_plain(x) for x in v]}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {"d": {str(k): _plain(x) for k, x in v.items()}}
    if isinstance(v, np.ndarray):
        return {"array": v.ravel().tolist(), "dtype": v.dtype.name, "shape": list(v.shape)}
    if isinstance(v, np.generic):
        return v.item()
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    np_type = getattr(v, "np", None)  # a ms_tensor dtype
    if np_type is not None:
        return {"dtype": np.dtype(np_type).name}
    raise TypeError(f"attribute value {v!r} ({type(v).__name__}) cannot be stored in a "
                    "lite model")


def _restore(v):
    if isinstance(v, list):
        return [_restore(x) for x in v]
    if not isinstance(v, dict):
        return v
    if "t" in v:
        return tuple(_restore(x) for x in v["t"])
    if "d" in v:
        return {k: _restore(x) for k, x in v["d"].items()}
    if "array" in v:
        return np.array(v["array"], dtype=v["dtype"]).reshape(v["shape"])
    if "dtype" in v:
        from ms_tensor import dtype as mstype

        return mstype.from_numpy(np.dtype(v["dtype"]))
    raise ValueError(f"unknown tagged attribute {v!r}")


def encode(attrs: dict) -> str:
    return json.dumps({k: _plain(v) for k, v in attrs.items()}, separators=(",", ":"))


def decode(text: str) -> dict:
    obj = json.loads(text)
    if not isinstance(obj, dict):
        raise ValueError(f"attributes must be a JSON object, got {type(obj).__name__}")
    return {k: _restore(v) for k, v in obj.items()}
