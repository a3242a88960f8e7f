"""The conversion report: every node of the input graph, what it became, and why."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

__all__ = ["Report", "Entry"]


@dataclass
class Entry:
    node: str     # the input graph's node name
    op: str       # its operator
    became: str   # "kept", "removed", "folded into a constant", "fused into X (Conv2DFusion)"
    why: str


class Report:
    """Filled by the passes through ``record``: ``became`` is a node's final form and
    ``why`` the chain of reasons that led there."""

    def __init__(self, graph):
        self.entries = {n.name: Entry(n.name, n.op, "kept", "no pass applies")
                        for n in graph.nodes}
        self.notes: list[str] = []
        self._origin: dict[str, list[str]] = {n.name: [n.name] for n in graph.nodes}

    def record(self, node_name: str, became: str, why: str) -> None:
        """Say what happened to a node; a node the converter created passes the record
        on to the input nodes it stands for."""
        for original in self._origin.get(node_name, [node_name]):
            e = self.entries.get(original)
            if e is None:
                continue
            e.why = why if e.became == "kept" or e.why == why else f"{e.why}; then {why}"
            e.became = became

    def merged(self, new_name: str, *old_names: str) -> None:
        """``new_name`` (a node a pass created) stands for ``old_names``."""
        self._origin[new_name] = [o for n in old_names for o in self._origin.get(n, [n])]

    def note(self, text: str) -> None:
        self.notes.append(text)

    def text(self) -> str:
        rows = [("node", "op", "became", "why")] + [
            (e.node, e.op, e.became, e.why) for e in self.entries.values()]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3]
                 for r in rows]
        return "\n".join(lines + [f"note: {n}" for n in self.notes])

    def to_json(self) -> str:
        return json.dumps({"nodes": [asdict(e) for e in self.entries.values()],
                           "notes": self.notes}, indent=1)
