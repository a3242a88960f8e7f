"""A described cluster: devices per node, link speeds, memory and compute per device.

Collective costs follow the ring algorithm's alpha-beta model: a collective over ``p`` ranks
moving ``n`` bytes costs ``steps * latency + volume / bandwidth``, where a group that stays
inside one node uses the intra-node link and any group that crosses nodes runs at the
inter-node link's speed (its slowest hop).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Topology", "COLLECTIVES"]

# kind -> (latency steps, bytes moved per rank) for p ranks and n bytes (the larger of input
# and output), ring algorithms.
COLLECTIVES = {
    "AllReduce": lambda p, n: (2 * (p - 1), 2 * (p - 1) / p * n),
    "AllGather": lambda p, n: (p - 1, (p - 1) / p * n),
    "ReduceScatter": lambda p, n: (p - 1, (p - 1) / p * n),
    "AlltoAll": lambda p, n: (p - 1, (p - 1) / p * n),
}


@dataclass(frozen=True)
class Topology:
    """Devices and links (defaults: a node of 8 accelerators on a fast local link).

    Args:
        device_num: total devices.
        devices_per_node: devices sharing the intra-node link; ranks are numbered node by node.
        intra_bandwidth / inter_bandwidth: bytes per second of one link.
        intra_latency / inter_latency: seconds per message.
        memory: bytes of memory per device.
        flops: floating-point operations per second of one device.
        memory_bandwidth: bytes per second a device reads and writes its own memory.

    >>> t = Topology.parse("8x128")
    >>> t.device_num, t.crosses_nodes(stride=1, size=8), t.crosses_nodes(stride=8, size=2)
    (1024, False, True)
    """

    device_num: int
    devices_per_node: int = 8
    intra_bandwidth: float = 150e9
    inter_bandwidth: float = 12.5e9
    intra_latency: float = 5e-6
    inter_latency: float = 2e-5
    memory: float = 32 * 2**30
    flops: float = 100e12
    memory_bandwidth: float = 1e12

    def __post_init__(self):
        if self.device_num < 1 or self.devices_per_node < 1:
            raise ValueError(f"Topology: device_num {self.device_num} and devices_per_node "
                             f"{self.devices_per_node} must be positive")
        if self.device_num > self.devices_per_node and self.device_num % self.devices_per_node:
            raise ValueError(f"Topology: {self.device_num} devices do not fill nodes of "
                             f"{self.devices_per_node}")

    @classmethod
    def parse(cls, text: str, **kw) -> Topology:
        """``"8x128"``: 8 devices per node, 128 nodes."""
        try:
            per, nodes = (int(p) for p in text.lower().split("x"))
        except ValueError:
            raise ValueError(f"topology {text!r}: expected DEVICES_PER_NODExNODES, "
                             "e.g. 8x128") from None
        return cls(device_num=per * nodes, devices_per_node=per, **kw)

    def crosses_nodes(self, stride: int, size: int) -> bool:
        """Whether a group of ``size`` ranks spaced ``stride`` apart spans several nodes."""
        span = stride * size
        return not (span <= self.devices_per_node and self.devices_per_node % span == 0)

    def collective(self, kind: str, group: int, nbytes: float, stride: int = 1) -> float:
        """Seconds for one collective over ``group`` ranks ``stride`` apart on ``nbytes``."""
        if group <= 1:
            return 0.0
        steps, volume = COLLECTIVES[kind](group, nbytes)
        if self.crosses_nodes(stride, group):
            return steps * self.inter_latency + volume / self.inter_bandwidth
        return steps * self.intra_latency + volume / self.intra_bandwidth

    def copy(self, nbytes: float) -> float:
        """Seconds to slice or copy ``nbytes`` locally (read and write)."""
        return 2 * nbytes / self.memory_bandwidth
