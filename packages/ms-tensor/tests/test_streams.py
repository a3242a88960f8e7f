"""Streams and events on the host: ordering tokens, timed events, per-thread current stream."""

import threading
import time

import pytest

from ms_tensor.streams import Event, Stream, StreamCtx, current_stream, default_stream


def test_events_time_the_work_between_them():
    start, end = Event(enable_timing=True), Event(enable_timing=True)
    start.record()
    time.sleep(0.01)
    end.record()
    assert end.query() and start.elapsed_time(end) >= 9.0
    with pytest.raises(RuntimeError, match="both events need enable_timing=True"):
        Event().elapsed_time(end)


def test_current_stream_is_per_thread_and_scoped():
    s = Stream(priority=1)
    assert current_stream() is default_stream()
    with StreamCtx(s):
        assert current_stream() is s
        seen = []
        t = threading.Thread(target=lambda: seen.append(current_stream()))
        t.start()
        t.join()
        assert seen == [default_stream()]
    assert current_stream() is default_stream()
    assert s.record_event().query()
    with pytest.raises(TypeError, match="Stream.wait_event: expected an Event"):
        s.wait_event(s)
