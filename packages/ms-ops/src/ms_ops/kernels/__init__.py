"""Compiled (Cython) CPU kernels; each has a numpy reference in ms_ops.defs.

Loading them changes nothing in the process beyond loading libgomp: no environment
variable is written and malloc is left as it is. Their thread counts come from one policy,
``ms_ops.kernels.threads`` (``set_context(runtime_num_threads=...)``), which also keeps
forked children from inheriting a dead OpenMP pool. Tuning that libgomp and glibc read
only from the environment (``OMP_WAIT_POLICY``, ``GOMP_SPINCOUNT``, ``MALLOC_*``) is the
user's to export; ``ms_ops.tuning`` says what helps and ``microspore info`` shows it.
"""

from ms_ops.kernels import threads  # noqa: F401 -- registers the fork handler first
