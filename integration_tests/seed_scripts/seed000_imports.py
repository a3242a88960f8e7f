"""Seed 000_6eee104ec2630034.txt, section 2.1 (导包技巧, import tips): the dataset imports.

Only ``mindspore`` is renamed to ``microspore``.
"""

import microspore.dataset as ds
import microspore.dataset.transforms.c_transforms as C
import microspore.dataset.vision.c_transforms as vision
import microspore.dataset.vision.py_transforms as pvision
