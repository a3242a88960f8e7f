"""Momentum on a ``ShardedNet``'s slices, with optimizer parallel (ZeRO-1) as an option.

MindSpore's ``enable_parallel_optimizer``: a Parameter slice that ``r`` ranks hold alike is
updated by each of them on only ``1/r`` of it, and each keeps the optimizer state of that
part only. The gradient is reduce-scattered over those ranks (instead of all-reduced), each
rank updates its part, and the updated parts are all-gathered back into the slice. The
result is the plain update's, with ``1/r`` of the state memory per rank.

The update is MindSpore's Momentum: ``accum = momentum * accum + grad``,
``param -= learning_rate * accum``.
"""

from __future__ import annotations

import numpy as np

from ms_tensor import Tensor

__all__ = ["ShardedMomentum"]


class ShardedMomentum:
    """Args:
        sharded: the ``ShardedNet`` whose Parameter slices it updates.
        learning_rate, momentum: as ``nn.Momentum``.
        parallel_optimizer: shard the update and its state over the ranks holding each slice.
    """

    def __init__(self, sharded, learning_rate: float, momentum: float,
                 parallel_optimizer: bool = False):
        self.net = sharded
        self.lr = float(learning_rate)
        self.momentum = float(momentum)
        self.parallel = parallel_optimizer
        self.state: dict[str, np.ndarray] = {}
        self._plan: dict[str, tuple] = {}
        for name, prm in sharded.params.items():
            ranks = sharded.replica_ranks(name)
            size = int(np.prod(prm.shape))
            split = parallel_optimizer and len(ranks) > 1 and size % len(ranks) == 0
            part = size // len(ranks) if split else size
            self._plan[name] = (ranks, split, part)
            self.state[name] = np.zeros(part, dtype=prm.asnumpy().dtype)

    def step(self, grads: dict) -> None:
        """Update every slice from this rank's raw gradients (before ``reduce_gradients``)."""
        from ms_parallel.reduce_ops import AllGather, AllReduce, ReduceScatter

        for name, g in grads.items():
            prm = self.net.params[name]
            ranks, split, part = self._plan[name]
            flat = g.reshape((-1,))
            if split:
                group = self.net.group(ranks)
                mine = ReduceScatter(flat, "sum", group).asnumpy()
                k = ranks.index(self.net.rank)
                p = prm.asnumpy().reshape(-1)[k * part:(k + 1) * part]
            else:
                if len(ranks) > 1:
                    flat = AllReduce(flat, "sum", self.net.group(ranks))
                mine, p = flat.asnumpy(), prm.asnumpy().reshape(-1)
            acc = self.state[name] = self.momentum * self.state[name] + mine
            p = p - self.lr * acc
            if split:
                p = AllGather(Tensor(p), self.net.group(ranks)).asnumpy()
            prm.set_data(Tensor(p.reshape(prm.shape)))
