"""Dataset sources: leaves of a pipeline (files, generators, numpy arrays)."""
