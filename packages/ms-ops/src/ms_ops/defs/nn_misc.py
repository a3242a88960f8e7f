"""Dropout and embedding lookups: Dropout, EmbeddingLookup, Embedding, UnsortedSegmentSum.

EmbeddingLookup (a row gather that gives zeros for out-of-range rows) and
UnsortedSegmentSum (a row scatter-add that drops out-of-range rows) are each other's
gradient, so both differentiate any number of times without a one-hot matrix.
``ops.embedding`` is its own operator rather than a Gather: ``padding_idx`` and
``scale_grad_by_freq`` change only its gradient, which a plain gather cannot express.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.arithmetic import Div, Mul, Sub
from ms_ops.defs.random import seeded_generator
from ms_ops.dispatch import execute
from ms_ops.infer import check_bool, check_dtype, check_int, check_rank
from ms_ops.opdef import FLOATS, INTS, NUMBERS, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor.tensor import Tensor


def _number(name, value, low=None, high=None, low_open=False):
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{name!r} must be a number, got {type(value).__name__} {value!r}")
    if (low is not None and (value < low or low_open and value == low)) or \
            (high is not None and value > high):
        lb = "(" if low_open else "["
        raise ValueError(f"{name!r} must be in {lb}{low}, {high}], got {value}")
    return value


def _as_int(name, value) -> int:
    """A static int that MindSpore also accepts as a 0-d integer tensor."""
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype in INTS:
        value = int(value.asnumpy())
    return check_int(name, value)


def _dropout_infer(x, keep_prob=0.5, Seed0=0, Seed1=0):
    check_dtype("x", x, FLOATS)
    _number("keep_prob", keep_prob, 0.0, 1.0, low_open=True)
    check_int("Seed0", Seed0, minimum=0)
    check_int("Seed1", Seed1, minimum=0)
    spec = TensorSpec(x.shape, x.dtype)
    return spec, spec


Dropout = OpDef("Dropout", (Arg("x"),), (Attr("keep_prob", 0.5), Attr("Seed0", 0),
                                         Attr("Seed1", 0)),
                infer=_dropout_infer, stateful=True, seed_attrs=("Seed0", "Seed1"),
                doc="Zero each element with probability 1 - keep_prob and scale the rest by "
                    "1 / keep_prob; returns (output, mask).")


@Dropout.kernel("CPU", dtypes=FLOATS)
def dropout_cpu(x, keep_prob=0.5, Seed0=0, Seed1=0, *, state):
    mask = (state.random(x.shape) < keep_prob).astype(x.dtype)
    return x * mask * np.asarray(1 / keep_prob, x.dtype), mask


@Dropout.bprop
def dropout_bprop(x, out, dout, keep_prob=0.5, Seed0=0, Seed1=0):
    # The mask is the second output, so the rule reads the mask the forward pass drew.
    return (Mul(Mul(dout[0], out[1]), 1 / keep_prob),)


@Dropout.samples
def _dropout(rng):
    yield (rng.standard_normal((3, 4)),), {"keep_prob": 0.6, "Seed0": 1, "Seed1": 2}
    yield (rng.standard_normal((2, 3)),), {"keep_prob": 1.0, "Seed0": 3, "Seed1": 0}


def _segment_sum_infer(x, ids, num_segments):
    check_dtype("input_x", x, NUMBERS)
    check_dtype("segment_ids", ids, INTS)
    if x.shape[:ids.ndim] != ids.shape:
        raise ValueError(f"segment_ids shape {ids.shape} must be a prefix of input_x shape "
                         f"{x.shape}")
    if _as_int("num_segments", num_segments) < 1:
        raise ValueError(f"'num_segments' must be >= 1, got {num_segments}")
    return TensorSpec((_as_int("num_segments", num_segments),) + x.shape[ids.ndim:], x.dtype)


UnsortedSegmentSum = OpDef(
    "UnsortedSegmentSum", (Arg("input_x"), Arg("segment_ids"), Arg("num_segments", STATIC)),
    infer=_segment_sum_infer, nondiff_inputs=("segment_ids",),
    doc="out[s] = sum of input_x[i] over the i with segment_ids[i] == s; ids outside "
        "[0, num_segments) are dropped (MindSpore's CPU kernel rejects ids >= num_segments).",
    functional="unsorted_segment_sum")


@UnsortedSegmentSum.kernel("CPU", dtypes=NUMBERS)
def unsorted_segment_sum_cpu(x, ids, num_segments):
    num = _as_int("num_segments", num_segments)
    rest = x.shape[ids.ndim:]
    flat_ids = ids.reshape(-1)
    keep = (flat_ids >= 0) & (flat_ids < num)
    out = np.zeros((num,) + rest, x.dtype)
    np.add.at(out, flat_ids[keep], x.reshape((-1,) + rest)[keep])
    return out


@UnsortedSegmentSum.bprop
def unsorted_segment_sum_bprop(x, ids, num_segments, out, dout):
    return (EmbeddingLookup(dout, ids, 0), None, None)


@UnsortedSegmentSum.samples
def _segment_sum(rng):
    yield (rng.standard_normal((5, 2)), np.array([0, 2, 0, 1, 2]), 3), {}
    # 2-d ids; an id outside [0, num_segments) is dropped, segment 3 stays empty
    yield (rng.standard_normal((2, 3, 2)), np.array([[1, -1, 0], [4, 1, 2]]), 4), {}


def _lookup_infer(params, indices, offset):
    check_dtype("input_params", params, NUMBERS)
    check_dtype("input_indices", indices, INTS)
    if params.ndim < 1:
        raise ValueError("input_params must be at least 1-d, got a 0-d tensor")
    _as_int("offset", offset)
    return TensorSpec(indices.shape + params.shape[1:], params.dtype)


EmbeddingLookup = OpDef(
    "EmbeddingLookup", (Arg("input_params"), Arg("input_indices"), Arg("offset", STATIC)),
    infer=_lookup_infer, nondiff_inputs=("input_indices",),
    doc="Rows ``input_indices - offset`` of input_params; rows outside the table are zero "
        "(each shard of a split table looks up only its own rows).")


@EmbeddingLookup.kernel("CPU", dtypes=NUMBERS)
def embedding_lookup_cpu(params, indices, offset):
    rows = params.shape[0]
    idx = indices.astype(np.int64) - _as_int("offset", offset)
    inside = (idx >= 0) & (idx < rows)
    out = params[np.where(inside, idx, 0)]
    out[~inside] = 0
    return out


@EmbeddingLookup.bprop
def embedding_lookup_bprop(params, indices, offset, out, dout):
    offset = _as_int("offset", offset)
    ids = Sub(indices, offset) if offset else indices
    return (UnsortedSegmentSum(dout, ids, params.shape[0]), None, None)


@EmbeddingLookup.samples
def _embedding_lookup(rng):
    yield (rng.standard_normal((4, 3)), np.array([[0, 3], [1, 0]]), 0), {}
    # a shard holding rows 2..5: ids below 2 or above 5 read zeros
    yield (rng.standard_normal((4, 2)), np.array([1, 2, 5, 6, 3, 3]), 2), {}


def _embedding_infer(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
                     scale_grad_by_freq=False):
    check_dtype("input", input, INTS)
    check_dtype("weight", weight, FLOATS)
    check_rank("weight", weight, 2)
    rows = weight.shape[0]
    if padding_idx is not None and not -rows <= check_int("padding_idx", padding_idx) < rows:
        raise ValueError(f"padding_idx {padding_idx} is out of range for weight shape "
                         f"{weight.shape} (expected {-rows} <= padding_idx < {rows})")
    if max_norm is not None:
        _number("max_norm", max_norm, 0.0, low_open=True)
    _number("norm_type", norm_type, 0.0, low_open=True)
    check_bool("scale_grad_by_freq", scale_grad_by_freq)
    return TensorSpec(input.shape + weight.shape[1:], weight.dtype)


Embedding = OpDef(
    "Embedding", (Arg("input"), Arg("weight"), Arg("padding_idx", STATIC, None),
                  Arg("max_norm", STATIC, None), Arg("norm_type", STATIC, 2.0),
                  Arg("scale_grad_by_freq", STATIC, False)),
    infer=_embedding_infer, nondiff_inputs=("input",),
    doc="Rows ``input`` of ``weight``. The row ``padding_idx`` gets no gradient; "
        "``scale_grad_by_freq`` divides each row's gradient by how often it was looked up; "
        "rows with a ``norm_type``-norm above ``max_norm`` are scaled down to it in the output "
        "(MindSpore also rescales ``weight`` in place; here ``weight`` is left unchanged).",
    functional="embedding")


@Embedding.kernel("CPU", dtypes=NUMBERS)
def embedding_cpu(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
                  scale_grad_by_freq=False):
    rows = weight.shape[0]
    if input.size and (input.min() < 0 or input.max() >= rows):
        raise ValueError(f"input values must lie in [0, {rows}), got values from "
                         f"{input.min()} to {input.max()}")
    out = weight[input]
    if max_norm is not None:
        norm = np.sum(np.abs(out) ** norm_type, axis=-1, keepdims=True) ** (1 / norm_type)
        scale = np.where(norm > max_norm, max_norm / (norm + 1e-7), 1.0)
        out = (out * scale).astype(weight.dtype)
    return out


@Embedding.bprop
def embedding_bprop(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, out,
                    dout):
    rows = weight.shape[0]
    grad = dout
    if scale_grad_by_freq:
        ones = Tensor(np.ones(input.shape, weight.dtype.np))
        counts = array.Reshape(UnsortedSegmentSum(ones, input, rows), (rows, 1))
        grad = Div(grad, EmbeddingLookup(counts, input, 0))
    dweight = UnsortedSegmentSum(grad, input, rows)
    if padding_idx is not None:
        keep = np.ones((rows, 1), weight.dtype.np)
        keep[padding_idx] = 0
        dweight = Mul(dweight, Tensor(keep))
    return (None, dweight, None, None, None, None)


@Embedding.samples
def _embedding(rng):
    # Static inputs: padding_idx, max_norm, norm_type, scale_grad_by_freq. Those three
    # options make the rule differ from the derivative on purpose (MindSpore's rule: the
    # padding row gets no gradient, gradients are divided by counts, the max_norm rescale
    # is treated as an in-place update of weight). The samples run their code paths where
    # rule and derivative agree: padding_idx not looked up, distinct ids, norms below
    # max_norm.
    ids = np.array([[0, 3, 1], [3, 4, 3]])
    yield (ids, rng.standard_normal((5, 3)), None, None, 2.0, False), {}
    yield (ids, rng.standard_normal((5, 3)), 2, None, 2.0, False), {}
    yield (np.array([4, 0, 2]), rng.standard_normal((5, 3)), None, None, 2.0, True), {}
    yield (ids, 0.2 * rng.standard_normal((5, 3)), None, 1.0, 2.0, False), {}


@functional("dropout")
def dropout(input, p=0.5, training=True, seed=None):
    """Zero elements with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Returns ``input`` itself when ``training`` is False.

    >>> ops.dropout(Tensor([1.0, 1.0]), p=0.0).asnumpy()
    array([1., 1.], dtype=float32)
    """
    if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p < 1:
        raise ValueError(f"dropout: p must be a number in [0, 1), got {p!r}")
    if not training:
        return input
    attrs = {"keep_prob": 1.0 - p, "Seed0": 0, "Seed1": 0}
    return execute(Dropout, [input], attrs, state=seeded_generator("dropout", seed))[0]
