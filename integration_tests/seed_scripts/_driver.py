"""Run one seed script as ``__main__``, then write chosen values of its globals as JSON.

``python _driver.py SCRIPT OUT.json NAME=EXPR ...`` evaluates each EXPR in the script's
globals after it ran; Tensors, arrays, lists and tuples become nested lists, other values
their repr.
"""

import json
import runpy
import sys

import numpy as np


def _plain(value):
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return repr(value)


def main(script, out, *exprs):
    env = runpy.run_path(script, run_name="__main__")
    found = {}
    for item in exprs:
        name, _, expr = item.partition("=")
        found[name] = _plain(eval(expr, env))
    with open(out, "w") as f:
        json.dump(found, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
