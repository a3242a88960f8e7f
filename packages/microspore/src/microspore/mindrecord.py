"""``mindspore.mindrecord``: record files (``FileWriter``, ``FileReader``) from ms-data.

``FileWriter(..., file_format="mindrecord")`` writes MindSpore's own format; ms-data's
default is Parquet (``ms_data.sources.records``). Both are read by ``FileReader`` and
``dataset.MindDataset``.
"""

from ms_data.sources.file_reader import FileReader
from ms_data.sources.records import FileWriter

__all__ = ["FileWriter", "FileReader"]
