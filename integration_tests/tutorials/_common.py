"""Shared by the tutorial scripts: how they report what they computed.

Each script ends with ``report(name=value, ...)``: one ``RESULT`` line of JSON, so the
test compares the same numbers from microspore and, where it is installed, MindSpore.
"""

import json

import numpy as np


def _plain(value):
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape),
                "value": value.astype(np.float64).round(6).tolist()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (np.generic,)):
        return value.item()
    return value


def report(**values):
    print("RESULT " + json.dumps({k: _plain(v) for k, v in values.items()}))
