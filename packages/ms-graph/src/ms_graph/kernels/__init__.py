"""Compiled (Cython) kernels of graph mode; each has a numpy reference beside it.

They run on the same libgomp as ms-ops' kernels and follow its one thread policy
(``ms_ops.kernels.threads``: ``set_context(runtime_num_threads=...)``, and the fork
handler that keeps forked children from inheriting a dead OpenMP pool), which importing
ms-ops' kernels sets up before this package's extension loads.
"""

from ms_ops.kernels import threads  # noqa: F401 -- the thread policy and fork handler
