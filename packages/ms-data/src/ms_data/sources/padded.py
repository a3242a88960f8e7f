"""``PaddedDataset``: rows given as a list of dicts, typically concatenated to a dataset so
that every shard of a distributed run gets the same number of rows.

Columns follow the first dict's keys; each value becomes ``np.asarray(value)`` (a Python
int int64, a float float64, a str a string), as MindSpore 2.10 does.

>>> import numpy as np
>>> d = PaddedDataset([{"image": np.zeros(2, np.uint8), "label": 3}])
>>> [(k, v.dtype.name) for k, v in next(d.create_dict_iterator(output_numpy=True)).items()]
[('image', 'uint8'), ('label', 'int64')]
"""

from __future__ import annotations

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import UnionBaseDataset
from ms_data.sources.base import MappableSource

__all__ = ["PaddedDataset"]


class PaddedDataset(MappableSource, UnionBaseDataset):
    """Rows from ``padded_samples``, a non-empty list of dicts with the same keys.

    Raises:
        TypeError: ``padded_samples`` is not a list of dicts.
        ValueError: it is empty, or a dict has other keys than the first (named).
    """

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list):
            raise TypeError(f"PaddedDataset: padded_samples must be a list of dicts, got "
                            f"{type(padded_samples).__name__}")
        if not padded_samples:
            raise ValueError("PaddedDataset: padded_samples cannot be empty")
        for i, row in enumerate(padded_samples):
            if not isinstance(row, dict):
                raise TypeError(f"PaddedDataset: padded_samples[{i}] must be a dict, got "
                                f"{type(row).__name__}")
        names = list(padded_samples[0])
        for i, row in enumerate(padded_samples):
            if list(row) != names:
                raise ValueError(f"PaddedDataset: padded_samples[{i}] has keys {list(row)}, "
                                 f"the first has {names}")
        super().__init__(shuffle=False)
        self._names = names
        self._rows = [{k: np.asarray(v) for k, v in row.items()} for row in padded_samples]

    def _length(self) -> int:
        return len(self._rows)

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _read(self, indices: np.ndarray):
        cols = {}
        for name in self._names:
            col = np.empty(len(indices), dtype=object)
            for k, i in enumerate(indices):
                col[k] = self._rows[i][name]
            cols[name] = col
        return batch_from_numpy(cols)
