"""Recomputation in compiled graphs: the backward graph reruns a recomputed region from its
inputs instead of keeping its activations as residuals, and the values equal PyNative's."""

import numpy as np
import pytest
from ms_graph import jit
from ms_graph.ir import Graph, Value
from ms_graph.passes import cse
from ms_graph.split import split_forward_backward
from ms_graph.trace import TraceError, trace

import ms_autodiff as ad
from ms_autodiff.recompute import recompute
from ms_ops import functional as F
from ms_ops.defs.nn_misc import Dropout
from ms_tensor import Parameter, Tensor

RNG = np.random.default_rng(0)
WIDTH = 64
WS = [(Parameter(Tensor(RNG.standard_normal((16, WIDTH)).astype(np.float32) * 0.3), name=f"a{i}"),
       Parameter(Tensor(RNG.standard_normal((WIDTH, 16)).astype(np.float32) * 0.3), name=f"b{i}"))
      for i in range(3)]
PARAMS = [w for pair in WS for w in pair]


def block(x, a, b):
    h = F.tanh(F.matmul(x, a))
    return F.matmul(h * h + 1.0, b)


def make(marked):
    def f(x):
        for a, b in WS:
            x = recompute(block, x, a, b, weights=[a, b], name="block") if marked \
                else block(x, a, b)
        return F.sin(x).sum()
    return f


XS = [Tensor(RNG.standard_normal((8, 16)).astype(np.float32)) for _ in range(3)]


def assert_close(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-4, atol=1e-5)


def _nbytes(v: Value) -> int:
    return int(np.prod(v.spec.shape)) * 4  # float32 throughout


def _residual_bytes(jf) -> int:
    (entry,) = jf._cache.values()
    dg = entry.executable
    return sum(_nbytes(v) for v in dg.forward.graph.outputs[dg.n_outputs:])


def test_grad_of_jit_recomputes_in_the_backward_graph_and_keeps_fewer_residuals():
    grads, residuals = {}, {}
    for marked in (False, True):
        jf = jit(make(marked))
        g = ad.grad(jf, 0, PARAMS)
        grads[marked] = [g(x) for x in XS]  # every call, not only the capture
        residuals[marked] = _residual_bytes(jf)
        dg = next(iter(jf._cache.values())).executable
        tagged = [n for n in dg.backward.graph.nodes if n.recompute == "block"]
        assert (len(tagged) > 0) is marked
        assert not any(n.recompute for n in dg.forward.graph.nodes)
    for plain, rec in zip(grads[False], grads[True]):
        assert_close([plain[0], *plain[1]], [rec[0], *rec[1]])
    # the plain graph keeps each block's (8, 64) activations; the recomputed one keeps
    # the blocks' (8, 16) inputs
    assert residuals[True] < residuals[False] / 2


def test_graph_equals_pynative_on_every_call():
    jf = ad.grad(jit(make(True)), 0, PARAMS)
    eager = ad.grad(make(True), 0, PARAMS)
    for x in XS:
        got, want = jf(x), eager(x)
        assert_close([got[0], *got[1]], [want[0], *want[1]])


def _peak_bytes(graph: Graph) -> int:
    """The most bytes of node outputs alive at once when the nodes run in order."""
    last: dict[int, int] = {}
    for k, node in enumerate(graph.nodes):
        for a in node.inputs():
            last[id(a)] = k
    keep = {id(v) for v in graph.outputs}
    live, peak = {}, 0
    for k, node in enumerate(graph.nodes):
        for o in node.outputs:
            live[id(o)] = _nbytes(o)
        peak = max(peak, sum(live.values()))
        for a in node.inputs():
            if last.get(id(a)) == k and id(a) not in keep:
                live.pop(id(a), None)
    return peak


def test_jit_of_grad_reruns_the_region_and_lowers_the_peak():
    peaks, results = {}, {}
    x = XS[0]
    for marked in (False, True):
        step = jit(ad.grad(make(marked), 0, PARAMS))
        results[marked] = step(x)
        results[marked] = step(x)  # a run of the compiled graph
        (graph,) = step.graphs()
        peaks[marked] = _peak_bytes(graph)
        tanh = [n for n in graph.nodes if n.name == "Tanh"]
        assert len(tanh) == (6 if marked else 3)  # CSE kept the rerun apart
    assert_close([results[True][0], *results[True][1]],
                 [results[False][0], *results[False][1]])
    assert peaks[True] < peaks[False]


def test_a_random_operator_in_a_compiled_region_is_not_rerun():
    def noisy(x):
        return Dropout(x * 3.0, keep_prob=0.5)[0]

    f = jit(lambda x: recompute(noisy, x, name="Noisy").sum())
    step = ad.value_and_grad(f)
    for x in XS:
        value, g = step(x)
        # the gradient is 3 / keep_prob where the forward kept an element: only the
        # forward's own mask gives its value back
        assert np.isclose(float(value.asnumpy()), float((x.asnumpy() * g.asnumpy()).sum()),
                          rtol=1e-5)
    dg = next(iter(f._cache.values())).executable
    assert [n.name for n in dg.forward.graph.nodes].count("Dropout") == 1
    assert not any(n.name == "Dropout" for n in dg.backward.graph.nodes)


def test_a_rerun_calling_other_random_operators_is_refused_by_name():
    calls = []

    def growing(x):
        calls.append(1)
        return x * 2.0 if len(calls) == 1 else Dropout(x, keep_prob=0.5)[0]

    g = jit(lambda x: recompute(growing, x, name="Growing").sum(), capture_mode="trace")
    with pytest.raises(TraceError, match=r"Growing\.recompute\(\): its rerun called Dropout"):
        ad.grad(g)(XS[0])


def test_cse_does_not_merge_a_rerun_with_the_forward():
    g = trace(lambda t: F.tanh(t) + F.tanh(t), XS[0])
    tanhs = [n for n in g.nodes if n.name == "Tanh"]
    tanhs[1].recompute = "block"
    assert len([n for n in cse.run(g).nodes if n.name == "Tanh"]) == 2
    tanhs[1].recompute = None
    assert len([n for n in cse.run(g).nodes if n.name == "Tanh"]) == 1


def test_split_keeps_a_rerun_node_in_the_backward():
    g = trace(lambda t, d: (F.tanh(t).sum(), F.tanh(t) * d), XS[0], XS[1])
    fwd, bwd, _ = split_forward_backward(g, 1, 1, backward_from=len(g.nodes))
    assert sum(n.name == "Tanh" for n in fwd.nodes) == 2
    rerun = [n for n in g.nodes if n.name == "Tanh"][1]
    rerun.recompute = "block"
    fwd, bwd, _ = split_forward_backward(g, 1, 1, backward_from=g.nodes.index(rerun))
    assert rerun in bwd.nodes and rerun not in fwd.nodes
    kept = [v.producer.name for v in fwd.outputs[1:] if v.producer is not None]
    assert "Tanh" not in kept and g.inputs[0] in fwd.outputs[1:]  # the input, not tanh's value


def test_a_rerun_compiled_apart_from_its_first_run_refuses_random_operators():
    inner = jit(lambda x: Dropout(x, keep_prob=0.5)[0])  # its first run is another graph's
    with pytest.raises(TraceError, match=r"Outer\.recompute\(\): its rerun, compiled apart"):
        ad.grad(lambda x: recompute(inner, x, name="Outer").sum())(XS[0])
    plain = jit(lambda x: F.tanh(x) * 2.0)  # without them the rerun is a capture like any
    got = ad.grad(lambda x: recompute(plain, x, name="Outer").sum())(XS[0])
    np.testing.assert_allclose(got.asnumpy(), 2 * (1 - np.tanh(XS[0].asnumpy()) ** 2),
                               rtol=1e-5)
