"""Semi-auto and auto parallel: layouts, redistribution, the cost model and strategy search.

MindSpore's design: each operator is cut by a strategy over a device matrix, tensors carry
layouts, tensor redistribution inserts the collectives that connect two layouts, and a search
(dynamic programming, recursive programming or sharding propagation) picks the strategies
under a cost model of a described cluster. Everything here runs for any device count in one
process; ``ms_parallel.auto.simulate`` checks layouts and redistributions on simulated ranks.
"""

from ms_parallel.auto.cost import CostModel
from ms_parallel.auto.dp import brute_force, dynamic_programming
from ms_parallel.auto.graph import OpGraph, capture
from ms_parallel.auto.layout import Layout, TensorLayout, strategy_layout
from ms_parallel.auto.propagation import sharding_propagation
from ms_parallel.auto.rec import recursive_programming
from ms_parallel.auto.redistribution import plan_redistribution
from ms_parallel.auto.topology import Topology

__all__ = ["CostModel", "Layout", "OpGraph", "TensorLayout", "Topology", "brute_force",
           "capture", "dynamic_programming", "plan_redistribution", "recursive_programming",
           "sharding_propagation", "strategy_layout"]
