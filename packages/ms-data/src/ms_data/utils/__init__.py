"""``mindspore.dataset.utils``: helpers beside the pipelines (``LineReader``)."""

from ms_data.utils.line_reader import LineReader

__all__ = ["LineReader"]
