"""``mindspore.train.summary``: ``SummaryRecord`` and ``SummaryCollector`` (ms-insight)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), (),
                               {"SummaryRecord": "ms_insight", "SummaryCollector": "ms_insight"})
