"""The summary operators: ``ops.ScalarSummary``, ``ImageSummary``, ``HistogramSummary``,
``TensorSummary``, called inside ``construct`` as in MindSpore.

Each takes a tag (a static string) and a tensor and hands a copy of the tensor to the
open ``SummaryRecord``s, which write it at their next ``record(step)``. They are
``side_effect_io`` operators, so graph mode keeps and runs them on every call although
nothing reads their output (a bool scalar, True). They have no gradient: the value
they are given flows on unchanged in the network, and the summary adds nothing to it.

>>> from ms_tensor import Tensor
>>> ScalarSummary.primitive()("loss", Tensor(0.5))
Tensor(shape=[], dtype=Bool, value= True)
"""

from __future__ import annotations

import numpy as np

from ms_insight.summary import _pending
from ms_ops.opdef import ALL, STATIC, Arg, OpDef, TensorSpec
from ms_tensor import dtype as mstype

__all__ = ["ScalarSummary", "ImageSummary", "HistogramSummary", "TensorSummary", "OPS"]

_ARGS = (Arg("name", STATIC), Arg("value", promote=False))
_NUMERIC = frozenset(d for d in ALL if d in mstype.number_types or d is mstype.bool_)


def _infer(op: str, check):
    def infer(name, value):
        if not isinstance(name, str) or not name:
            raise TypeError(f"{op}: name must be a non-empty str, got {name!r}")
        if value.dtype not in _NUMERIC:
            raise TypeError(f"{op}: value {name!r} must be a number tensor, got dtype "
                            f"{value.dtype}")
        check(name, value.shape)
        return TensorSpec((), mstype.bool_)
    return infer


def _any_shape(name, shape) -> None:
    return None


def _scalar_shape(name, shape) -> None:
    if shape not in ((), (1,)):
        raise ValueError(f"ScalarSummary: value {name!r} must have shape () or (1,), got "
                         f"{shape}")


def _image_shape(name, shape) -> None:
    if len(shape) != 4 or shape[1] not in (1, 3, 4) or 0 in shape:
        raise ValueError(f"ImageSummary: value {name!r} must be a non-empty NCHW batch with "
                         f"1, 3 or 4 channels, got shape {shape}")


def _nonempty(name, shape) -> None:
    if 0 in shape:
        raise ValueError(f"HistogramSummary: value {name!r} must not be empty, got shape "
                         f"{shape}")


def _define(op: str, kind: str, check, doc: str, sample_shape):
    definition = OpDef(op, _ARGS, infer=_infer(op, check), differentiable=False,
                       side_effect_io=True, doc=doc)

    @definition.kernel("CPU", dtypes=_NUMERIC)
    def _(value, name):
        _pending.put(kind, name, value)
        return np.True_

    @definition.samples
    def _(rng):
        yield (f"{kind}_tag", rng.standard_normal(sample_shape)), {}
        yield (f"{kind}_int", rng.integers(0, 9, sample_shape).astype(np.int32)), {}

    return definition


ScalarSummary = _define("ScalarSummary", "scalar", _scalar_shape,
                        "Record a scalar (shape () or (1,)) under ``name``.", ())
ImageSummary = _define("ImageSummary", "image", _image_shape,
                       "Record an NCHW batch of images under ``name`` (tiled into one).",
                       (2, 3, 4, 4))
HistogramSummary = _define("HistogramSummary", "histogram", _nonempty,
                           "Record the histogram of a tensor's values under ``name``.",
                           (3, 5))
TensorSummary = _define("TensorSummary", "tensor", _any_shape,
                        "Record a whole tensor under ``name``.", (2, 3))

OPS = (ScalarSummary, ImageSummary, HistogramSummary, TensorSummary)
