"""Data sink for ``Model``: batches through a device queue, steps through ``GetNext``.

``SinkRunner`` opens a data channel (``ms_graph.sink``) fed by a background thread from
the dataset, ahead of the steps. ``run(n)`` runs ``n`` steps and returns the last one's
outputs: in GRAPH_MODE as one compiled loop (``ms_graph.sink.loop.SinkLoop``: GetNext,
forward, backward and update repeated inside the executor, no Python between steps); in
PyNative as a host loop that calls ``GetNext`` and the network, the batches prefetched
and the callbacks run once per sink by ``Model``.
"""

from __future__ import annotations

import itertools

from ms_tensor import dtype as mstype
from ms_tensor.context import GRAPH_MODE, get_context
from ms_tensor.tensor import Tensor, array_of

__all__ = ["SinkRunner", "set_sink_timeout", "get_sink_timeout"]

_timeout = [60.0]
_names = itertools.count()


def set_sink_timeout(seconds: float) -> None:
    """How long ``GetNext`` waits for a batch before it raises the data-starved diagnosis
    (MindSpore waits for its device queue, too; 60 s by default)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"set_sink_timeout: seconds must be a positive number, got "
                         f"{seconds!r}")
    _timeout[0] = float(seconds)


def get_sink_timeout() -> float:
    return _timeout[0]


def _loop_cache(network, who: str, specs):
    """``(channel name, cache)``: the compiled sink loop of ``network`` for batches of
    ``specs`` lives on the network, so the next ``Model.train`` call reuses it (its
    GetNext names the channel, so the name is the same each time); a second sink open on
    the same network at once gets a fresh name and compiles its own."""
    from ms_graph.sink.channel import is_open

    name = f"{who}_{id(network)}"
    store = getattr(network, "__dict__", None)
    if store is None or is_open(name):
        return f"{who}_{next(_names)}", {}
    cache = store.setdefault("_sink_loops", {})
    return name, cache.setdefault((who, tuple(specs)), {})


def _arrays(batches):
    for batch in batches:
        yield tuple(array_of(x) if isinstance(x, Tensor) else x for x in batch)


class SinkRunner:
    """One network fed from one stream of batches through a channel (see module doc).

    Args:
        network: the Cell (or function) one step calls with a batch's columns.
        batches: an iterator of batches (tuples of Tensors or arrays).
        who: the caller's name, for errors.
        describe: the dataset, in words, for the starved-queue diagnosis.
        graph: compile the sink loop (True), run it from the host (False), or follow the
            context's mode (None).
    """

    def __init__(self, network, batches, who: str, describe: str = "", graph=None):
        from ms_graph.sink import DataChannel

        self.network = network
        self.who = who
        batches = _arrays(batches)
        try:
            first = next(batches)
        except StopIteration:
            raise ValueError(f"{who}: the dataset gave no batches in sink mode") from None
        self.specs = [(a.shape, mstype.from_numpy(a.dtype)) for a in first]
        self.name, self._loops = _loop_cache(network, who, self.specs)
        self.channel = DataChannel(self.name, itertools.chain([first], batches),
                                   timeout=_timeout[0], describe=describe)
        self._attrs = {"types": [d for _, d in self.specs],
                       "shapes": [tuple(s) for s, _ in self.specs],
                       "output_num": len(self.specs), "shared_name": self.name}
        self.graph = graph
        self.last_batch = None

    def run(self, n: int):
        """Run ``n`` steps; returns the last step's outputs."""
        if self.graph or (self.graph is None and get_context("mode") == GRAPH_MODE):
            return self._graph_run(n)
        out = None
        for _ in range(n):
            batch = self._get_next()
            self.last_batch = batch
            out = self.network(*batch)
        return out

    def _get_next(self):
        """GetNext called eagerly; the queue's own errors (starved, ended, the pipeline
        failed) come out as they are, not as an operator failure."""
        from ms_graph.sink import ChannelError
        from ms_graph.sink.get_next import GetNext

        from ms_ops.dispatch import OpError

        try:
            return GetNext(**self._attrs)
        except OpError as e:
            if isinstance(e.__cause__, (ChannelError, EOFError)):
                raise e.__cause__ from e.__cause__.__cause__
            raise

    def _graph_run(self, n: int):
        from ms_graph.sink.loop import SinkLoop, state_key

        loop = self._loops.get("loop")
        if loop is None:
            loop = self._loops["loop"] = SinkLoop(self.network, self.name, self.specs,
                                                  name=self.name)
        self.last_batch = None  # the batches never reach the host
        return loop.run(n, state_key(self.network))

    @property
    def compiles(self) -> int:
        """How many times the sink loop was compiled (0 in PyNative)."""
        loop = self._loops.get("loop")
        return 0 if loop is None else loop.captures

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> SinkRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
