"""The ``mode`` fixture: a test that uses it runs once in PYNATIVE_MODE and once in
GRAPH_MODE (where the outermost Cell's ``construct`` is compiled by ms-graph), so both
execution modes are held to the same expectations.

Modules whose tests call Cells mark themselves with
``pytestmark = pytest.mark.usefixtures("mode")``; a test that needs to know the mode
takes ``mode`` as an argument.
"""

import pytest

from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context

MODES = {"pynative": PYNATIVE_MODE, "graph": GRAPH_MODE}


@pytest.fixture(params=list(MODES.values()), ids=list(MODES))
def mode(request):
    """The execution mode set for the test (restored afterwards)."""
    previous = get_context("mode")
    set_context(mode=request.param)
    yield request.param
    set_context(mode=previous)


@pytest.fixture
def graph_runs(monkeypatch):
    """A function giving how many Cell calls since the test began captured or ran a
    compiled graph (to show that a GRAPH_MODE test did not silently run operators)."""
    from ms_graph.jit import JitFunction

    made = []
    init = JitFunction.__init__

    def tracking_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(JitFunction, "__init__", tracking_init)
    return lambda: sum(j.misses + j.hits for j in made)
