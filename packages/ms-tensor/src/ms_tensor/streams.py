"""MindSpore's streams and events (``ms.Stream``, ``ms.Event``, ``ms.current_stream``...)
for the host, where every operator has finished when its call returns.

A stream is therefore an ordering token: work on any stream is complete at once, so
``synchronize``, ``wait_event`` and ``wait_stream`` have nothing to wait for and
``query`` is True. An event records the moment it was recorded, so ``elapsed_time``
between two timing events is the wall time between those calls, as on a device.
"""

from __future__ import annotations

import threading
import time

__all__ = ["Stream", "Event", "StreamCtx", "current_stream", "default_stream",
           "set_cur_stream", "launch_blocking"]


class Stream:
    """A stream of the host device (priority is kept for the caller's reference)."""

    def __init__(self, priority: int = 0, **kwargs):
        self.priority = priority

    def synchronize(self) -> None:
        """Every operator queued on the host stream has already run."""

    def query(self) -> bool:
        return True

    def wait_event(self, event: Event) -> None:
        if not isinstance(event, Event):
            raise TypeError(f"Stream.wait_event: expected an Event, got {type(event).__name__}")

    def wait_stream(self, stream: Stream) -> None:
        if not isinstance(stream, Stream):
            raise TypeError(f"Stream.wait_stream: expected a Stream, got "
                            f"{type(stream).__name__}")

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def __repr__(self) -> str:
        return f"Stream(device=CPU, priority={self.priority})"


class Event:
    """A point in a stream; with ``enable_timing`` it keeps when it was recorded."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False):
        self.enable_timing = enable_timing
        self.recorded_at: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        self.recorded_at = time.perf_counter()

    def synchronize(self) -> None:
        """The recorded work has run (host operators finish before returning)."""

    def wait(self, stream: Stream | None = None) -> None:
        """Work on ``stream`` after this point can start: it always can."""

    def query(self) -> bool:
        return True

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds from this event's record to ``end_event``'s."""
        for e in (self, end_event):
            if not e.enable_timing:
                raise RuntimeError("Event.elapsed_time: both events need enable_timing=True")
            if e.recorded_at is None:
                raise RuntimeError("Event.elapsed_time: both events must be recorded first")
        return (end_event.recorded_at - self.recorded_at) * 1000.0


_DEFAULT = Stream()
_current = threading.local()


def default_stream() -> Stream:
    """The stream operators run on unless another is set."""
    return _DEFAULT


def current_stream() -> Stream:
    """This thread's current stream."""
    return getattr(_current, "stream", _DEFAULT)


def set_cur_stream(stream: Stream) -> None:
    """Make ``stream`` this thread's current stream."""
    if not isinstance(stream, Stream):
        raise TypeError(f"set_cur_stream: expected a Stream, got {type(stream).__name__}")
    _current.stream = stream


class StreamCtx:
    """``with ms.StreamCtx(s):`` runs the block with ``s`` as the current stream."""

    def __init__(self, ctx_stream: Stream | None):
        self.stream = ctx_stream

    def __enter__(self):
        self.previous = current_stream()
        if self.stream is not None:
            set_cur_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        set_cur_stream(self.previous)
        return False


def launch_blocking() -> None:
    """Make operators finish before their call returns: on the host they always do."""
