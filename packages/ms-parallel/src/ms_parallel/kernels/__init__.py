"""Compiled parts of ms-parallel (optional: each has a Python fallback)."""
