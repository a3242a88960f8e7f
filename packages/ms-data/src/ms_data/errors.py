"""The errors ms-data raises on its own account (besides TypeError/ValueError for arguments).

- ``DatasetError`` (a ValueError): the data is bad — a file that is corrupt, truncated or
  not in its format (the message names the file), or rows that do not fit their column
  (the message names the column, the rows and the dtypes). Loaders never let a bare
  numpy, pyarrow, zlib or Pillow error out: every input ends in this, or in
  FileNotFoundError for a missing file.
- ``PipelineError`` (a RuntimeError): an operation of a pipeline (a user function, a worker)
  failed; the message names the operation and has the original traceback.
"""

from __future__ import annotations

__all__ = ["DatasetError", "PipelineError"]


class DatasetError(ValueError):
    """Bad data: a corrupt file (named in the message) or rows that do not fit a column."""


class PipelineError(RuntimeError):
    """An operation of a dataset pipeline failed; the message names it and has the traceback."""
