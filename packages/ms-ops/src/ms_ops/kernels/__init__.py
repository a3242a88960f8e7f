"""Compiled (Cython) CPU kernels; each has a numpy reference in ms_ops.defs."""
