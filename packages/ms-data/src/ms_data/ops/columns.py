"""``project`` (choose and order columns) and ``rename``; both move no data."""

from __future__ import annotations

import pyarrow as pa

from ms_data.bases import UnionBaseDataset
from ms_data.dataset import EpochContext
from ms_data.ops.map import column_list

__all__ = ["ProjectDataset", "RenameDataset"]


class ProjectDataset(UnionBaseDataset):
    """The node made by ``Dataset.project``."""

    def __init__(self, child, columns):
        super().__init__([child])
        self.columns = column_list("project", columns, "columns")
        if not self.columns:
            raise ValueError("project: columns is empty")
        names = child._column_names()
        missing = [c for c in self.columns if c not in names]
        if missing:
            raise ValueError(f"project: columns {missing} not in the dataset's columns {names}")

    def _column_names(self) -> list[str]:
        return list(self.columns)

    def _batches(self, ctx: EpochContext):
        for chunk in self.children[0]._batches(ctx):
            index = [chunk.schema.get_field_index(c) for c in self.columns]
            yield pa.RecordBatch.from_arrays([chunk.column(i) for i in index],
                                             schema=pa.schema([chunk.schema.field(i)
                                                               for i in index]))


class RenameDataset(UnionBaseDataset):
    """The node made by ``Dataset.rename``."""

    def __init__(self, child, input_columns, output_columns):
        super().__init__([child])
        ins = column_list("rename", input_columns, "input_columns")
        outs = column_list("rename", output_columns, "output_columns")
        if not ins or not outs or len(ins) != len(outs):
            raise ValueError(f"rename: input_columns {ins} and output_columns {outs} must be "
                             f"non-empty and of the same length")
        names = child._column_names()
        missing = [c for c in ins if c not in names]
        if missing:
            raise ValueError(f"rename: input_columns {missing} not in the dataset's columns "
                             f"{names}")
        self.mapping = dict(zip(ins, outs))
        self._names = [self.mapping.get(n, n) for n in names]
        if len(set(self._names)) != len(self._names):
            raise ValueError(f"rename: the result has duplicate columns {self._names}")

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _batches(self, ctx: EpochContext):
        for chunk in self.children[0]._batches(ctx):
            fields = [f.with_name(self.mapping.get(f.name, f.name)) for f in chunk.schema]
            yield pa.RecordBatch.from_arrays(chunk.columns, schema=pa.schema(fields))
