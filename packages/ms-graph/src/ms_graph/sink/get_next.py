"""``GetNext``: the operator that reads one batch of a data channel inside a graph.

MindSpore's ``ops.GetNext(types, shapes, output_num, shared_name)``: no inputs, one
output per dataset column, shapes and dtypes fixed when the graph compiles (sink needs
static shapes: a batch that does not match raises, naming the column). It has a side
effect (it consumes the queue), so graph passes neither fold, merge nor drop it: it is
declared ``stateful``, without a random generator (``new_generator`` gives None), so it
does not shift the random streams of the operators around it.
"""

from __future__ import annotations

import numpy as np

from ms_ops import Attr, OpDef, TensorSpec
from ms_tensor import dtype as mstype

__all__ = ["GetNext"]


class _QueueOp(OpDef):
    """An OpDef whose state is a queue, not a random generator."""

    def new_generator(self, attrs: dict):
        return None


def _specs(types, shapes, output_num):
    if not isinstance(types, (list, tuple)) or not isinstance(shapes, (list, tuple)):
        raise TypeError(f"GetNext: types and shapes must be lists, got {type(types).__name__} "
                        f"and {type(shapes).__name__}")
    if not (len(types) == len(shapes) == output_num):
        raise ValueError(f"GetNext: output_num is {output_num} but types has {len(types)} and "
                         f"shapes {len(shapes)} entries; give one of each per column")
    out = []
    for i, (t, s) in enumerate(zip(types, shapes)):
        if not isinstance(t, mstype.DType):
            raise TypeError(f"GetNext: types[{i}] must be a microspore dtype, got {t!r}")
        if any(not isinstance(d, int) or d < 0 for d in s):
            raise ValueError(f"GetNext: shapes[{i}] = {tuple(s)}: sink needs static shapes "
                             "(non-negative ints); dynamic shapes are not supported")
        out.append(TensorSpec(tuple(s), t))
    return out


def _infer(types, shapes, output_num, shared_name):
    return tuple(_specs(types, shapes, output_num))


GetNext = _QueueOp(
    "GetNext", (), (Attr("types"), Attr("shapes"), Attr("output_num"), Attr("shared_name")),
    infer=_infer, differentiable=False, stateful=True, seed_attrs=(),
    doc="The next batch of the data channel ``shared_name`` (one output per column).")


@GetNext.kernel("CPU")
def get_next_cpu(types, shapes, output_num, shared_name, state=None):
    """Pop one batch; check it against the compiled shapes and dtypes."""
    from ms_graph.sink.channel import get_channel

    batch = get_channel(shared_name).get()
    if len(batch) != output_num:
        raise ValueError(f"GetNext: channel {shared_name!r} gave a batch of {len(batch)} "
                         f"columns, the graph was compiled for {output_num}")
    out = []
    for i, (a, t, s) in enumerate(zip(batch, types, shapes)):
        if a.shape != tuple(s):
            raise ValueError(f"GetNext: column {i} of channel {shared_name!r} has shape "
                             f"{a.shape}, the graph was compiled for {tuple(s)}; sink needs "
                             "every batch the same shape (batch(..., drop_remainder=True))")
        if a.dtype != t.np:
            a = a.astype(t.np)  # as MindSpore's queue, which converts to the declared type
        out.append(a)
    return tuple(out)


@GetNext.samples
def get_next_samples(rng):
    """One float and one int column through a channel opened for the samples."""
    from ms_graph.sink.channel import DataChannel

    x = rng.standard_normal((2, 3))
    y = np.arange(2, dtype=np.int32)
    name = f"get_next_samples_{id(rng)}"
    ch = DataChannel(name, [(x, y)] * 4, capacity=4)
    try:
        yield (), {"types": [mstype.float64, mstype.int32], "shapes": [(2, 3), (2,)],
                   "output_num": 2, "shared_name": name}
    finally:
        ch.close()
