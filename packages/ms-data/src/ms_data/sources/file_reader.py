"""``FileReader`` (``mindspore.mindrecord.FileReader``): the rows of record files as dicts,
without a pipeline, for a quick look at what a ``FileWriter`` wrote.

As MindSpore 2.10 gives them: numeric scalars as Python numbers, strings as ``str``,
``bytes`` fields as ``bytes``, shaped fields as numpy arrays; MindRecord files (MindSpore's
or ``file_format="mindrecord"``) and ms-data's Parquet/Arrow record files alike.
"""

from __future__ import annotations

__all__ = ["FileReader"]


def _plain(value):
    if isinstance(value, bytes):
        return value
    if value.dtype.kind == "S" and value.shape == (1,):
        return bytes(value[0])
    if value.ndim == 0:
        return value.item()
    return value


class FileReader:
    """Rows of ``file_name`` (and its sibling shards), ``columns`` only if given.

    Args:
        file_name: one shard (the others are found from it) or a list of shards.
        num_consumer: accepted for MindSpore's signature (reading is one pass here).
        columns: the fields to read; None reads all.
        operator: reserved in MindSpore; must be None.
    """

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        from ms_data.sources.records import MindDataset

        if not isinstance(num_consumer, int) or num_consumer < 1:
            raise ValueError(f"FileReader: num_consumer must be a positive int, got "
                             f"{num_consumer!r}")
        if operator is not None:
            raise ValueError("FileReader: operator is reserved and must be None")
        self._dataset = MindDataset(file_name, columns_list=columns, shuffle=False)

    def get_next(self):
        """Yield each row as a dict (see the module doc)."""
        records = getattr(self._dataset, "records", None)  # a MindRecord file: exact bytes
        if records is not None:
            for row in records():
                yield {k: _plain(v) for k, v in row.items()}
            return
        # ms-data's record files: bytes fields from the table (a numpy bytes array would
        # drop their trailing NULs)
        table = self._dataset._data_table()
        raw = [n for n in self._dataset._column_names()
               if self._dataset.schema[n]["type"] == "bytes"]
        rows = self._dataset.create_dict_iterator(num_epochs=1, output_numpy=True)
        for i, row in enumerate(rows):
            out = {k: _plain(v) for k, v in row.items()}
            out.update({n: table.column(n)[i].as_py() for n in raw})
            yield out

    def len(self) -> int:
        return self._dataset.get_dataset_size()

    def schema(self) -> dict:
        return dict(self._dataset.schema)

    def close(self) -> None:
        """Nothing stays open between reads; kept for MindSpore's API."""
