"""The profiler: how long each operator's kernel takes, in PyNative and in graph mode.

``Profiler`` installs a kernel observer in ms-ops' dispatch (and so in ms-graph's
executor) that times every kernel call; nothing is installed, and nothing is paid,
while no profiler runs. ``analyse()`` gives the per-operator table and writes it with a
Chrome-trace JSON (``chrome://tracing``, Perfetto).
"""

from ms_insight.profiler.profiler import Profiler
from ms_insight.profiler.report import OpStat, Report

__all__ = ["Profiler", "Report", "OpStat"]
