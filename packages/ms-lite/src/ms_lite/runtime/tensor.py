"""MindSpore Lite's ``Tensor``: a named input or output of a model, holding numpy data."""

from __future__ import annotations

import enum

import numpy as np

__all__ = ["Tensor", "DataType", "Format"]


class DataType(enum.Enum):
    """MindSpore Lite's tensor data types (the names ``mindspore_lite.DataType`` uses)."""

    BOOL = "bool"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    UINT8 = "uint8"
    FLOAT16 = "float16"
    FLOAT32 = "float32"
    FLOAT64 = "float64"


class Format(enum.Enum):
    DEFAULT = "DEFAULT"
    NCHW = "NCHW"
    NHWC = "NHWC"


class Tensor:
    """One model input or output.

    >>> from ms_lite import Tensor
    >>> t = Tensor("x", (1, 2), "float32")
    >>> t.set_data_from_numpy(np.ones((1, 2), np.float32))
    >>> t.get_data_to_numpy(), t.element_num, t.data_size, t.dtype
    (array([[1., 1.]], dtype=float32), 2, 8, <DataType.FLOAT32: 'float32'>)
    """

    def __init__(self, name: str, shape, dtype: str):
        self.name = name
        self._shape = tuple(shape)
        self._dtype = np.dtype(dtype)
        self._array: np.ndarray | None = None
        self._buffer: np.ndarray | None = None  # a model input's planned buffer
        self.format = Format.NCHW if len(self._shape) == 4 else Format.DEFAULT

    @property
    def shape(self) -> list[int]:
        return list(self._shape)

    def get_shape(self) -> list[int]:
        return self.shape

    @property
    def dtype(self) -> DataType:
        return DataType(self._dtype.name)

    @property
    def element_num(self) -> int:
        return int(np.prod(self._shape, dtype=np.int64))

    @property
    def data_size(self) -> int:
        return self.element_num * self._dtype.itemsize

    def set_data_from_numpy(self, array) -> None:
        """Copy ``array`` in; its shape and dtype must be the tensor's (``Model.resize``
        changes the shape), as MindSpore Lite requires."""
        a = np.asarray(array)
        if a.dtype != self._dtype:
            raise TypeError(f"tensor {self.name!r}: data has dtype {a.dtype}, expected "
                            f"{self._dtype} (cast it first)")
        if a.shape != self._shape:
            raise ValueError(f"tensor {self.name!r}: data has shape {a.shape}, expected "
                             f"{self._shape} (call Model.resize to change it)")
        if self._buffer is not None:  # the model reads it from there: no second copy
            np.copyto(self._buffer, a)
            self._array = self._buffer
        else:
            self._array = np.array(a, order="C")

    def get_data_to_numpy(self) -> np.ndarray:
        """A copy of the data (later predictions do not change it)."""
        if self._array is None:
            raise ValueError(f"tensor {self.name!r} holds no data yet")
        return self._array.copy()

    def _set(self, array: np.ndarray) -> None:
        self._shape = tuple(array.shape)
        self._array = array

    def __repr__(self) -> str:
        return f"Tensor(name={self.name!r}, shape={self.shape}, dtype={self._dtype.name})"
