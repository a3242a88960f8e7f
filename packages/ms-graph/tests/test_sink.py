"""Data sink's device queue, the GetNext operator and the compiled sink loop."""

import threading
import time

import numpy as np
import pytest
from ms_graph.sink import DataChannel, DataStarvedError, get_channel
from ms_graph.sink.get_next import GetNext
from ms_graph.sink.loop import SinkLoop, state_key

from ms_ops import functional as F
from ms_tensor import Parameter
from ms_tensor import dtype as mstype
from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, set_context

SPECS = [((8, 4), mstype.float32), ((8,), mstype.int32)]


def batches(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((8, 4)).astype(np.float32),
             rng.integers(0, 3, 8).astype(np.int32)) for _ in range(n)]


def feeders():
    return [t for t in threading.enumerate() if t.name.startswith("ms-sink-feeder")]


def attrs(name):
    return {"types": [d for _, d in SPECS], "shapes": [s for s, _ in SPECS],
            "output_num": 2, "shared_name": name}


@pytest.fixture
def graph_mode():
    set_context(mode=GRAPH_MODE)
    yield
    set_context(mode=PYNATIVE_MODE)


# -- the channel ------------------------------------------------------------------------
def test_channel_gives_batches_in_order_then_eof_and_joins_its_thread():
    data = batches(5)
    with DataChannel("t_order", iter(data), capacity=2) as ch:
        got = [ch.get() for _ in range(5)]
        with pytest.raises(EOFError, match="no more batches"):
            ch.get()
        with pytest.raises(EOFError):  # stays at the end
            ch.get()
    for (a, b), (x, y) in zip(got, data):
        np.testing.assert_array_equal(a, x)
        np.testing.assert_array_equal(b, y)
    assert not feeders()


def test_channel_is_bounded_the_feeder_runs_ahead_by_capacity_only():
    pulled = []

    def source():
        for i in range(100):
            pulled.append(i)
            yield (np.array([i]),)

    with DataChannel("t_bound", source(), capacity=4) as ch:
        deadline = time.monotonic() + 5
        while len(pulled) < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
        assert 4 <= len(pulled) <= 5  # the queue's 4, plus one the feeder holds
        assert int(ch.get()[0][0]) == 0


def test_the_feeder_sleeps_until_the_queue_drained_to_half():
    """A full queue wakes the feeder only after the reader took half of it: the feeder's
    work comes in runs, not one wake (and GIL switch) per batch."""
    pulled = []

    def source():
        for i in range(100):
            pulled.append(i)
            yield (np.array([i]),)

    def settle(n):
        deadline = time.monotonic() + 5
        while len(pulled) < n and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.1)
        return len(pulled)

    with DataChannel("t_half", source(), capacity=8) as ch:
        full = settle(8)  # the queue's 8, plus one the feeder may hold
        for _ in range(3):
            ch.get()
        assert settle(full) == full  # 5 left, above half: the feeder still sleeps
        ch.get()
        assert settle(full + 4) >= full + 4  # 4 left, half: it refilled in one run
        assert [int(ch.get()[0][0]) for _ in range(5)] == [4, 5, 6, 7, 8]


def test_starved_queue_names_the_slow_stage_instead_of_hanging():
    release = threading.Event()

    def slow_decode():
        release.wait(10)
        yield (np.zeros(2),)

    ch = DataChannel("t_starve", slow_decode(), timeout=0.3, describe="MyPipeline")
    start = time.monotonic()
    with pytest.raises(DataStarvedError) as e:
        ch.get()
    assert time.monotonic() - start < 3
    msg = str(e.value)
    assert "data processing is too slow" in msg and "slow_decode" in msg
    assert "dataset_sink_mode=False" in msg and "MyPipeline" in msg
    release.set()
    ch.close()
    assert not feeders()


def test_pipeline_error_reaches_the_reader():
    def broken():
        yield (np.zeros(2),)
        raise KeyError("bad sample 7")

    with DataChannel("t_err", broken()) as ch:
        ch.get()
        with pytest.raises(RuntimeError, match="pipeline of channel 't_err' failed.*bad "
                                               "sample 7"):
            ch.get()


def test_close_while_the_feeder_waits_on_a_full_queue_leaves_no_thread():
    def endless():
        while True:
            yield (np.zeros(3),)

    ch = DataChannel("t_close", endless(), capacity=2)
    ch.get()
    ch.close()
    assert not ch.alive and not feeders()
    with pytest.raises(RuntimeError, match="no data channel 't_close'"):
        get_channel("t_close")


def test_names_are_unique_and_arguments_checked():
    with DataChannel("t_dup", iter([])):
        with pytest.raises(RuntimeError, match="already open"):
            DataChannel("t_dup", iter([]))
    with pytest.raises(ValueError, match="capacity"):
        DataChannel("t_cap", iter([]), capacity=0)
    with pytest.raises(ValueError, match="timeout"):
        DataChannel("t_to", iter([]), timeout=0)


# -- GetNext ----------------------------------------------------------------------------
def test_get_next_reads_the_channel_and_checks_shapes():
    data = batches(2) + [(np.zeros((7, 4), np.float32), np.zeros(7, np.int32))]
    with DataChannel("t_gn", iter(data)):
        x, y = GetNext(**attrs("t_gn"))
        assert x.shape == (8, 4) and y.dtype == mstype.int32
        np.testing.assert_array_equal(x.asnumpy(), data[0][0])
        GetNext(**attrs("t_gn"))
        with pytest.raises(ValueError, match=r"column 0 .* shape \(7, 4\).*\(8, 4\).*"
                                             "drop_remainder"):
            GetNext(**attrs("t_gn"))


def test_get_next_converts_dtypes_and_refuses_dynamic_shapes():
    with DataChannel("t_gn2", iter([(np.ones((8, 4)), np.ones(8, np.int64))])):
        x, y = GetNext(**attrs("t_gn2"))
        assert x.dtype == mstype.float32 and y.dtype == mstype.int32
    with pytest.raises(ValueError, match="static shapes"):
        GetNext(types=[mstype.float32], shapes=[(-1, 4)], output_num=1, shared_name="x")
    with pytest.raises(ValueError, match="output_num"):
        GetNext(types=[mstype.float32], shapes=[(2,)], output_num=2, shared_name="x")


# -- the compiled loop ------------------------------------------------------------------
def test_loop_of_a_function_with_an_in_place_update_runs_every_step(graph_mode):
    data = batches(12)
    total = Parameter(np.zeros((), np.float32), name="total")

    def step(x, y):
        F.assign_add(total, F.sum(x))
        return F.sum(y), total * 1

    with DataChannel("t_fn", iter(data)):
        loop = SinkLoop(step, "t_fn", SPECS)
        a = loop.run(5, state_key(step))
        b = loop.run(7, state_key(step))
    assert loop.captures == 1
    assert int(a[0].asnumpy()) == int(data[4][1].sum())
    np.testing.assert_allclose(b[1].asnumpy(), sum(float(x.sum()) for x, _ in data),
                               rtol=1e-5)
    (node,) = loop.executable.graph.nodes
    assert node.op == "While"
    (call,) = [n for n in node.subgraphs[1].nodes if n.op == "Call"]
    assert call.subgraphs[0].nodes[0].op is GetNext


def test_loop_counts_are_checked():
    with pytest.raises(ValueError, match="positive int"):
        SinkLoop(lambda x, y: x, "none", SPECS).run(0)
