"""``Batches``: the dataset protocol ``Model`` accepts, without importing ms_data.

A dataset is either an object with ``create_tuple_iterator(num_epochs=...)`` (and usually
``get_dataset_size()``), as ms_data's datasets are, or any iterable of batches, each a
tuple/list ``(inputs..., label)`` of Tensors or numpy arrays (a dict batch gives its values
in order). Iterating the plain iterable again must start a new epoch.
"""

from __future__ import annotations

import numpy as np

from ms_tensor import Tensor

__all__ = ["Batches"]


class Batches:
    """One dataset seen as epochs of Tensor tuples."""

    def __init__(self, dataset, who: str):
        self._dataset = dataset
        self._who = who
        self._iterator = None
        if hasattr(dataset, "create_tuple_iterator"):
            self.size = dataset.get_dataset_size() if hasattr(dataset, "get_dataset_size") \
                else None
        elif hasattr(dataset, "__iter__"):
            self.size = len(dataset) if hasattr(dataset, "__len__") else None
        else:
            raise TypeError(f"{who}: the dataset must offer create_tuple_iterator() or be an "
                            f"iterable of batches, got {type(dataset).__name__}")
        if self.size is not None and self.size <= 0:
            raise ValueError(f"{who}: the dataset is empty (size {self.size})")

    def _pass(self, num_epochs, arrays: bool = False):
        if hasattr(self._dataset, "create_tuple_iterator"):
            if self._iterator is None:
                num_epochs = -1 if num_epochs is None else num_epochs
                make = self._dataset.create_tuple_iterator
                try:
                    self._iterator = make(num_epochs=num_epochs, output_numpy=True) \
                        if arrays else make(num_epochs=num_epochs)
                except TypeError:  # a dataset of another kind, without output_numpy
                    self._iterator = make(num_epochs=num_epochs)
            return self._iterator
        return self._dataset

    def epoch(self, num_epochs):
        """An iterator over one epoch; ``num_epochs`` is how many epochs this run may take."""
        for batch in self._pass(num_epochs):
            yield self._convert(batch)

    def stream(self, num_epochs):
        """Batches across ``num_epochs`` epochs (None: without end), for sink mode: tuples
        of numpy arrays as the dataset gives them (``output_numpy``), since the device
        queue holds arrays (a Tensor made per batch only to be unwrapped again cost the
        feeder thread ~20 us of a batch-16 MLP's step, holding the GIL)."""
        done = 0
        while num_epochs is None or done < num_epochs:
            got = False
            for batch in self._pass(num_epochs, arrays=True):
                got = True
                yield self._columns(batch)
            if not got:
                raise ValueError(f"{self._who}: the dataset gave no batches")
            done += 1

    def _convert(self, batch):
        return tuple(Tensor(x) if isinstance(x, np.ndarray) else x
                     for x in self._columns(batch))

    def _columns(self, batch):
        if isinstance(batch, dict):
            return tuple(batch.values())
        if isinstance(batch, (Tensor, np.ndarray)):
            return (batch,)
        if not isinstance(batch, (tuple, list)):
            raise TypeError(f"{self._who}: each batch must be a tuple or list of Tensors "
                            f"(inputs..., label), got {type(batch).__name__}")
        return batch

    def close(self) -> None:
        """Stop the dataset's prefetching when training ends early."""
        stop = getattr(self._iterator, "stop", None)
        if stop is not None:
            stop()
        self._iterator = None
