"""The lineage of several runs as one text table: a row per run, a column per field."""

from __future__ import annotations

__all__ = ["flatten", "format_table"]

# Shown first, in this order; any other field follows alphabetically.
_FIRST = ("network", "loss_function", "optimizer", "hyper_parameters.epoch",
          "hyper_parameters.batch_size", "hyper_parameters.learning_rate",
          "train_dataset.path", "train_dataset.size", "metrics", "train_loss", "checkpoint")


def flatten(record: dict, prefix: str = "") -> dict[str, object]:
    """Nested dicts as dotted keys: ``{"a": {"b": 1}}`` -> ``{"a.b": 1}``; a dataset
    pipeline as its one line (``lineage.dataset_graph.pipeline_text``)."""
    from ms_insight.lineage.dataset_graph import is_dataset_graph, pipeline_text

    out = {}
    for k, v in record.items():
        key = f"{prefix}{k}"
        if is_dataset_graph(v):
            out[key] = pipeline_text(v)
        elif isinstance(v, dict) and v:
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "-" if v is None else str(v)


def format_table(runs: dict[str, dict], fields=None) -> str:
    """``runs`` (``{name: lineage record}``) as an aligned text table.

    Args:
        fields: dotted field names to show (prefixes select groups: ``"metrics"`` shows
            every metric); default: every field any run has.

    >>> print(format_table({"a": {"network": "LeNet5", "metrics": {"acc": 0.9}},
    ...                     "b": {"network": "MLP", "metrics": {"acc": 0.75}}}))
    run  network  metrics.acc
    a    LeNet5   0.9
    b    MLP      0.75
    """
    flat = {name: flatten(r) for name, r in runs.items()}
    keys = sorted({k for r in flat.values() for k in r if not k.startswith("_")})
    if fields:
        keys = [k for k in keys if any(k == f or k.startswith(f + ".") for f in fields)]

    def order(k):
        for i, f in enumerate(_FIRST):
            if k == f or k.startswith(f + "."):
                return (i, k)
        return (len(_FIRST), k)

    keys.sort(key=order)
    rows = [["run", *keys]] + [[name, *(_cell(r.get(k)) for k in keys)]
                               for name, r in flat.items()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
                     for row in rows)
