# ruff: noqa: F401 -- a setup imports the names its examples use
"""README's first example, up to the error it shows."""

import numpy as np

import ms_ops as ops
from ms_tensor import Tensor, float32

x = Tensor(np.ones((2, 3)), float32)
w = Tensor(np.ones((4, 3)), float32)
