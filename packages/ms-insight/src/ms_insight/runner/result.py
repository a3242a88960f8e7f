"""What an explanation run returns: the scores of every method on every metric, the
ranking, and a check that turns a score into a test failure."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ExplainResult"]


@dataclass
class ExplainResult:
    """``scores[method][metric]`` (mean over the samples, higher is better, NaN where the
    metric had nothing to score) and ``ranking``: ``(method, mean score)`` best first."""

    scores: dict = field(default_factory=dict)
    ranking: list = field(default_factory=list)
    num_samples: int = 0
    accuracy: float = float("nan")
    path: str = ""

    def require(self, metric: str, at_least: float, method: str | None = None) -> None:
        """Raise ``AssertionError`` when ``method``'s (every method's, if None) score on
        ``metric`` is below ``at_least``: explanations as a CI gate.

        >>> r = ExplainResult(scores={"Gradient": {"Localization(IoSR)": 0.4}})
        >>> r.require("Localization(IoSR)", 0.3)
        >>> r.require("Localization(IoSR)", 0.5)
        Traceback (most recent call last):
        ...
        AssertionError: Gradient scores 0.4000 on Localization(IoSR), below the required 0.5
        """
        methods = [method] if method is not None else list(self.scores)
        for m in methods:
            if m not in self.scores:
                raise KeyError(f"no explainer {m!r} in this run; ran: {', '.join(self.scores)}")
            if metric not in self.scores[m]:
                raise KeyError(f"{m} was not scored on {metric!r}; metrics: "
                               f"{', '.join(self.scores[m])}")
            value = self.scores[m][metric]
            if not value >= at_least:
                raise AssertionError(f"{m} scores {value:.4f} on {metric}, below the required "
                                     f"{at_least}")
