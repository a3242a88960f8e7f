#!/usr/bin/env python3
"""Write ms-data's bundled handwritten digits as MNIST IDX files (run once; output is committed).

Source: scikit-learn's 8x8 digits (1,797 images, 0..16 grey levels, BSD licensed). Each image is
scaled to 0..255, resized to 28x28 with Pillow's bilinear filter, rounded to uint8, shuffled with a
fixed seed and split 1,500 train / 297 test. The four files carry MNIST's standard names,
uncompressed, so that ``MnistDataset(dir, usage="train")`` reads them in ms-data and in MindSpore.

scikit-learn is needed only to run this script; it is not a dependency of any package.

    python tools/make_digits.py [--out packages/ms-data/src/ms_data/bundled/digits]
"""

from __future__ import annotations

import argparse
import struct
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "packages/ms-data/src/ms_data/bundled/digits"
N_TRAIN = 1500
SEED = 20240521
SIZE = 28


def _resize(image8: np.ndarray) -> np.ndarray:
    # Mode "F" keeps the interpolation in float32 so rounding happens once, at the end.
    scaled = Image.fromarray((image8 * (255.0 / 16.0)).astype(np.float32), mode="F")
    big = np.asarray(scaled.resize((SIZE, SIZE), Image.BILINEAR))
    return np.clip(np.rint(big), 0, 255).astype(np.uint8)


def _write_idx(path: Path, array: np.ndarray) -> None:
    # IDX header: two zero bytes, type code 0x08 (unsigned byte), number of dimensions, then each
    # dimension as a big-endian uint32.
    header = bytes([0, 0, 0x08, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    path.write_bytes(header + np.ascontiguousarray(array, dtype=np.uint8).tobytes())


def main() -> None:
    from sklearn.datasets import load_digits

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    out = parser.parse_args().out
    digits = load_digits()
    images = np.stack([_resize(im) for im in digits.images])
    labels = digits.target.astype(np.uint8)
    order = np.random.default_rng(SEED).permutation(len(images))
    images, labels = images[order], labels[order]
    out.mkdir(parents=True, exist_ok=True)
    _write_idx(out / "train-images-idx3-ubyte", images[:N_TRAIN])
    _write_idx(out / "train-labels-idx1-ubyte", labels[:N_TRAIN])
    _write_idx(out / "t10k-images-idx3-ubyte", images[N_TRAIN:])
    _write_idx(out / "t10k-labels-idx1-ubyte", labels[N_TRAIN:])
    print(f"wrote {N_TRAIN} train / {len(images) - N_TRAIN} test digits to {out}")


if __name__ == "__main__":
    main()
