"""Compiled (Cython) CPU kernels; each has a numpy reference in ms_ops.defs.

OpenMP threads that spin while waiting steal the other core from numpy and from the
next kernel on a 2-core machine (measured: 31 ms -> 4.6 ms for one BatchNorm under
load), so waiting threads sleep unless the user chose otherwise — but only after a short
spin (``GOMP_SPINCOUNT``, some tens of microseconds): a training step runs its parallel
kernels (and MKL's products, on the same libgomp threads) back to back, and waking a
sleeping thread for each cost LeNet5 8% and the MLP 5% of their PyNative steps. This
must be set before the OpenMP runtime loads, which is when the first kernel module is
imported.
The same moment tunes glibc's malloc so that a step's freed arrays serve the next step
(``ms_ops._malloc``).
"""

import os

from ms_ops._malloc import keep_freed_memory

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("GOMP_SPINCOUNT", "20000")
keep_freed_memory()
