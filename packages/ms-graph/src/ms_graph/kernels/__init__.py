"""Compiled (Cython) kernels of graph mode; each has a numpy reference beside it.

OpenMP threads that spin while waiting steal the other core from numpy (see ms-ops'
``kernels/__init__.py``), so waiting threads sleep unless the user chose otherwise. This
must be set before the OpenMP runtime loads, i.e. before the first kernel module imports.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
