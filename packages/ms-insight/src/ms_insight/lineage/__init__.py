"""Lineage: what each training run was made of and what it reached, one JSON per run.

A run's directory (a summary ``log_dir``) holds ``lineage.json``: hyperparameters, the
dataset's path and size, the network, loss function and optimizer, the metrics, the
checkpoint and anything the user adds (``custom_lineage_data``). ``SummaryCollector``
writes it; ``load_runs(base_dir)`` reads every run below a directory and
``format_table`` prints them side by side (``microspore insight lineage DIR``).
"""

from ms_insight.lineage.store import LINEAGE_FILE, load_runs, read_lineage, update_lineage
from ms_insight.lineage.table import format_table

__all__ = ["LINEAGE_FILE", "update_lineage", "read_lineage", "load_runs", "format_table"]
