"""Every registered operator on its own samples: exported (ms-graph's capture into the
lite IR), written to a .ms file, read back and run by the lite runtime, it returns what
eager mode returns; an operator export cannot hold is refused with its name."""

import numpy as np
import pytest

pytest.importorskip("ms_graph")

from ms_lite.format import from_buffer, to_bytes  # noqa: E402
from ms_lite.ir import from_cell  # noqa: E402
from ms_lite.ir.capture import UnsupportedOperatorError  # noqa: E402
from ms_lite.runtime.executor import Executor  # noqa: E402
from ms_ops.opdef import TENSOR  # noqa: E402
from ms_tensor import Tensor, registry  # noqa: E402
from ms_tensor.tensor import array_of  # noqa: E402

pytestmark = pytest.mark.slow


def _cases():
    reg = registry.load()
    for e in reg.entries("primitive"):
        op = e.value
        if reg.lookup("op_sample", op.name) is None:
            continue
        for k, (args, attrs) in enumerate(op.samples_fn(np.random.default_rng(0))):
            if k == 1:
                break
            yield op, args, attrs


def _split(op, args):
    tensors, statics = [], {}
    for a, arg in zip(args, op.inputs):
        if arg.kind == TENSOR and isinstance(a, np.ndarray):
            tensors.append(a)
        else:
            statics[arg.name] = a
    return tensors, statics


def test_every_registered_operator_round_trips_or_is_named():
    done, refused, failed = [], [], []
    for op, args, attrs in _cases():
        tensors, statics = _split(op, args)
        if not tensors:
            continue

        def fn(*ts, op=op, statics=statics, attrs=attrs):
            it = iter(ts)
            call = [next(it) if a.kind == TENSOR and a.name not in statics else statics[a.name]
                    for a in op.inputs[:len(ts) + len(statics)]]
            return op(*call, **attrs)

        try:
            want = fn(*[Tensor(t) for t in tensors])
        except Exception:  # a sample that needs more than tensors (callables, ...)
            continue
        try:
            g = from_cell(fn, *tensors, name=op.name)
        except UnsupportedOperatorError as e:
            assert op.name in str(e)
            refused.append(op.name)
            continue
        g2, _ = from_buffer(to_bytes(g), f"{op.name}.ms")
        got = Executor(g2).run(tensors)
        wants = want if isinstance(want, tuple) else (want,)
        ok = len(got) == len(wants) and all(
            np.allclose(np.asarray(a, np.float64), np.asarray(array_of(b), np.float64),
                        rtol=1e-6, atol=1e-7, equal_nan=True) and a.shape == array_of(b).shape
            for a, b in zip(got, wants))
        (done if ok else failed).append(op.name)
    assert not failed, f"lite runtime differs from eager for {sorted(set(failed))}"
    assert len(set(done)) > 100, len(set(done))
