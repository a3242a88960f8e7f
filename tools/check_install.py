#!/usr/bin/env python3
"""Check an installed microspore, as ``nox -s build`` does from its wheelhouse.

Run it with the interpreter of an environment made by
``pip install --find-links dist microspore``, from outside the source tree: every
microspore package must come from site-packages, every compiled extension must import,
and one call per package must go through its Cython kernels and give numpy's numbers.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import sys
import sysconfig
from pathlib import Path

DISTRIBUTIONS = ("ms-tensor", "ms-ops", "ms-ops-scipy", "ms-autodiff", "ms-graph", "ms-data",
                 "ms-nn", "ms-parallel", "ms-lite", "ms-insight", "ms-device-ascend",
                 "microspore")


def extension_modules(dist: str) -> list[str]:
    """Import names of the compiled modules that ``dist`` installed."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    return [str(f)[: -len(suffix)].replace("/", ".")
            for f in md.distribution(dist).files or () if str(f).endswith(suffix)]


def main() -> int:
    site = Path(sysconfig.get_path("platlib")).resolve()
    for dist in DISTRIBUTIONS:
        name = dist.replace("-", "_")
        module = importlib.import_module(name)
        if site not in Path(module.__file__).resolve().parents:
            sys.exit(f"{name} comes from {module.__file__}, not from {site}")
        for ext in extension_modules(dist):
            importlib.import_module(ext)
        print(f"{dist} {md.version(dist)}: {len(extension_modules(dist))} extension modules")

    import numpy as np

    import microspore as ms
    from microspore import dataset, nn, ops

    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 2, 2), np.float32)
    conv = ops.conv2d(ms.Tensor(x), ms.Tensor(w)).asnumpy()  # ms-ops' Cython im2col
    expect = np.array([[x[0, 0, i:i + 2, j:j + 2].sum() for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(conv[0, 0], expect)

    @ms.jit
    def chain(a):  # ms-graph fuses the elementwise chain into its Cython kernel
        return ops.relu(a * 2.0 - 3.0) + 1.0

    a = np.linspace(-2, 2, 8, dtype=np.float32)
    np.testing.assert_allclose(chain(ms.Tensor(a)).asnumpy(), np.maximum(a * 2 - 3, 0) + 1)

    image = np.full((4, 4, 3), 100, np.uint8)
    data = dataset.NumpySlicesDataset({"image": image[None]}, shuffle=False)
    data = data.map(dataset.vision.Resize((2, 2)), "image")  # ms-data's Cython resize
    np.testing.assert_array_equal(next(data.create_tuple_iterator(output_numpy=True))[0],
                                  np.full((2, 2, 3), 100, np.uint8))

    net = nn.Dense(3, 2)
    assert net(ms.Tensor(np.ones((4, 3), np.float32))).shape == (4, 2)
    print("kernels of ms-ops, ms-graph and ms-data give numpy's numbers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
