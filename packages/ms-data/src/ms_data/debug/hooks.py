"""DebugHook and its two ready-made hooks (MindSpore's ``mindspore.dataset.debug``)."""

from __future__ import annotations

import collections.abc

import numpy as np

__all__ = ["DebugHook", "PrintMetaDataHook", "PrintDataHook"]


class DebugHook:
    """Base class: override ``compute(self, *args)``; ``args`` holds the row's columns.

    In debug mode a map calls its hooks with the input of its first operation and the
    output of every operation, after printing which one it is.
    """

    def __init__(self, prev_op_name=None):
        self.prev_op_name = prev_op_name
        self.is_first_op = None

    def __call__(self, *args):
        if self.prev_op_name:
            where = "INPUT" if self.is_first_op else "OUTPUT"
            print(f"[Dataset debugger] Print the [{where}] of the operation "
                  f"[{self.prev_op_name}].", flush=True)
        self.compute(args)
        return args

    def compute(self, *args):
        raise RuntimeError("compute() is not overridden in subclass of class DebugHook.")

    def set_previous_op_name(self, prev_op_name):
        self.prev_op_name = prev_op_name

    def set_is_first(self, is_first_op):
        self.is_first_op = is_first_op


class PrintMetaDataHook(DebugHook):
    """Prints each column's dtype and shape (or type and size)."""

    def compute(self, *args):
        for col_idx, col in enumerate(*args):
            message = f"Column {col_idx}. "
            if isinstance(col, np.ndarray):
                message += f"The dtype is [{col.dtype}]. The shape is [{col.shape}]."
            elif hasattr(col, "getbands"):  # a PIL image
                message += f"The type is [{type(col)}]. The shape is [{col.size}]."
            elif isinstance(col, collections.abc.Sized):
                message += f"The type is [{type(col)}]. The size is [{len(col)}]."
            print(message, flush=True)
        return args


class PrintDataHook(DebugHook):
    """Prints each column's values."""

    def compute(self, *args):
        for col_idx, col in enumerate(*args):
            print(f"Column {col_idx}. The data is [{col}].", flush=True)
        return args
