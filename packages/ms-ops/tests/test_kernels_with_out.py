"""CPU kernels registered with ``out=True`` write into ``out`` exactly what they return
without it: same bits, every sample, every dtype they take (graph executors rely on it)."""

import numpy as np
import pytest

import ms_ops
from ms_ops import TensorSpec
from ms_ops.opdef import TENSOR
from ms_tensor import dtype as mstype
from ms_tensor import registry

DTYPES = (mstype.float16, mstype.bfloat16, mstype.float32, mstype.float64, mstype.int32,
          mstype.uint8, mstype.bool_)
ENTRIES = [e for e in registry.load().entries("kernel")
           if e.backend == "CPU" and e.plugin == "ops" and e.info["out"]]


def test_the_hot_training_kernels_take_out():
    names = {e.name for e in ENTRIES}
    assert {"MatMul", "BatchMatMul", "Add", "Sub", "Mul", "Div", "ReLU", "ReluGrad",
            "ReduceSum"} <= names


def _as(dtype, a):
    if dtype is mstype.bool_:
        return a > 0
    if dtype.kind in "iu":
        return np.round(np.abs(a) * 3 if dtype.kind == "u" else a * 3).astype(dtype.np)
    return a.astype(dtype.np)


def _cases(entry):
    op = registry.load().primitive(entry.name)
    sample = registry.load().lookup("op_sample", entry.name)
    for k, (args, attrs) in enumerate(sample(np.random.default_rng(0))):
        for dtype in DTYPES:
            if dtype in entry.info["dtypes"]:
                yield op, k, dtype, args, attrs


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_writing_into_out_gives_the_returned_bits(entry):
    checked = 0
    for op, k, dtype, args, attrs in _cases(entry):
        values = [_as(dtype, a) if isinstance(a, np.ndarray) else a for a in args]
        raw = [v for v, a in zip(values, op.inputs) if a.kind == TENSOR]
        specs = [TensorSpec(v.shape, mstype.from_numpy(v.dtype))
                 if a.kind == TENSOR and isinstance(v, np.ndarray) else v
                 for v, a in zip(values, op.inputs)]
        try:
            plan = ms_ops.plan(op, specs, attrs)
        except TypeError:  # inference refuses this dtype for this operator
            continue
        arrays = [r if c is None else np.asarray(r, c) for r, c in zip(raw, plan.casts)]
        want = np.asarray(plan.kernel(*arrays, **plan.kwargs), plan.out_dtypes)
        out = np.empty(want.shape, plan.out_dtypes)
        out.reshape(-1).view(np.uint8)[...] = 0xA5  # garbage the kernel must overwrite
        got = plan.kernel(*arrays, **plan.kwargs, out=out)
        assert np.shares_memory(got, out) and got.shape == out.shape, \
            f"{entry.name} sample {k} {dtype}: the result is not the out array"
        assert out.tobytes() == want.tobytes(), f"{entry.name} sample {k} {dtype}: bits differ"
        checked += 1
    assert checked, f"{entry.name}: no sample ran"
