"""Compiled (Cython) CPU kernels; each has a numpy reference in ms_ops.defs.

OpenMP threads that spin while waiting steal the other core from numpy and from the
next kernel on a 2-core machine (measured: 31 ms -> 4.6 ms for one BatchNorm under
load), so waiting threads sleep unless the user chose otherwise. This must be set
before the OpenMP runtime loads, which is when the first kernel module is imported.
The same moment tunes glibc's malloc so that a step's freed arrays serve the next step
(``ms_ops._malloc``).
"""

import os

from ms_ops._malloc import keep_freed_memory

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
keep_freed_memory()
