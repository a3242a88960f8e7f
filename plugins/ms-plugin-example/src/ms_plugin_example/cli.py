"""``microspore mish X [X ...]``: a subcommand added to the ``microspore`` command.

It shows the CLI hook: ``plugin.py`` registers :func:`mish_command` and the user runs it
without importing anything.
"""

from __future__ import annotations

import argparse

import numpy as np

from ms_tensor import Tensor, float32


def mish_command(argv: list[str]) -> int:
    """Print ``mish(x)`` for each number, computed by the plugin's operator."""
    parser = argparse.ArgumentParser(prog="microspore mish", description=mish_command.__doc__)
    parser.add_argument("x", type=float, nargs="+", help="input values")
    args = parser.parse_args(argv)

    from ms_plugin_example.mish import Mish

    out = Mish(Tensor(np.array(args.x, np.float32), float32)).asnumpy()
    for x, y in zip(args.x, out):
        print(f"mish({x:g}) = {y:.6f}")
    return 0
