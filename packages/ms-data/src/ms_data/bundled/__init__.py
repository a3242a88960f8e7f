"""Data files shipped with ms-data.

``digits``: 1,797 real handwritten digits (scikit-learn's 8x8 digits, BSD licensed) resized to
28x28 grayscale and stored as MNIST IDX files (1,500 train / 297 test) under MNIST's standard
names, so the same directory works with ``MnistDataset`` here and in MindSpore. The files are made
by ``tools/make_digits.py`` at the repository root.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["digits_dir"]


def digits_dir() -> str:
    """Directory of the bundled digits, for ``MnistDataset(digits_dir(), usage="train")``.

    >>> import os
    >>> sorted(os.listdir(digits_dir()))[0]
    't10k-images-idx3-ubyte'
    """
    return str(Path(__file__).resolve().parent / "digits")
