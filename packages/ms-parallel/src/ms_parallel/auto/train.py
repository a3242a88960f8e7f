"""What ms-nn's ``TrainOneStepCell`` (and so ``Model.train``) runs in SEMI_AUTO_PARALLEL and
AUTO_PARALLEL, found through the registry entry ``("train_hook", "parallel_step")``.

On its first call the step captures the network on the global batch, plans it with the
context's settings (``plan_from_context``) and then, as MindSpore does after compiling,
slices the network's own Parameters in place: each rank keeps its slice, and the
optimizer's state (moments, accumulators: any Parameter tuple aligned with its Parameters)
is sliced alike. Every step then runs the sharded forward and backward (``ShardedNet``),
sums each slice's gradient over the ranks holding the same slice and calls the user's
optimizer on the slices. An elementwise update of a slice is the slice of the full update,
so the losses equal a single process's.

``enable_parallel_optimizer``: as MindSpore's optimizer parallel, where ``r`` ranks hold the
same slice, each keeps only its ``1/r`` flat part of it (the Parameter itself is the part)
and of its optimizer state; the forward pass all-gathers the part where the slice is read,
so the backward pass reduce-scatters its gradient (the AllGather's adjoint), and each rank's
optimizer updates its part.

In GRAPH_MODE the whole step (input gather, sharded forward and backward, reductions,
optimizer) is compiled by ``ms_graph.jit`` into one graph per input signature, the
collectives being graph nodes.

With ``pipeline_stages`` > 1 the network is an ``nn.PipelineCell`` and the step is
``PipelineTrainStep`` (``ms_parallel.auto.pipeline_step``): 1F1B, each stage on one rank or
sharded over several (optimizer parallel there too, through ``slice_in_place``).

Without ``full_batch`` each rank's inputs are its part of the global batch (rank order, as
a dataset with ``num_shards``/``shard_id`` gives them) and are gathered first.
"""

from __future__ import annotations

import numpy as np

from ms_parallel.context import get_auto_parallel_context as _get
from ms_tensor import Tensor
from ms_tensor import float32 as ms_float32
from ms_tensor.context import GRAPH_MODE, get_context

__all__ = ["parallel_step_for", "ParallelTrainStep"]

# Optimizers whose update is elementwise per Parameter: a slice's update is the update's
# slice. (LAMB or LARS, which take norms of whole Parameters, are not.)
ELEMENTWISE = frozenset({"Momentum", "SGD", "Adam", "AdamW", "AdamWeightDecay", "Adagrad",
                         "RMSProp", "Adadelta", "AdaMax", "FTRL", "ProximalAdagrad"})


def parallel_step_for(network, optimizer, sens=1.0):
    """The sharded training step for ``TrainOneStepCell``, or None outside the
    SEMI_AUTO_PARALLEL / AUTO_PARALLEL modes."""
    if _get("parallel_mode") not in ("semi_auto_parallel", "auto_parallel"):
        return None
    from ms_nn.optim.optimizer import Optimizer

    kind = type(optimizer).__name__
    if kind not in ELEMENTWISE or not isinstance(optimizer, Optimizer):
        names = ", ".join(sorted(ELEMENTWISE))
        raise ValueError(f"TrainOneStepCell in {_get('parallel_mode')}: optimizer {kind} is not "
                         f"an elementwise nn optimizer (supported: {names}); its update of a "
                         "Parameter slice might not be the slice of its update")
    if not isinstance(sens, (int, float)):
        raise ValueError(f"TrainOneStepCell in {_get('parallel_mode')}: sens must be a "
                         f"number, got {type(sens).__name__}")
    if _get("pipeline_stages") > 1:
        from ms_parallel.auto.pipeline_step import PipelineTrainStep

        return PipelineTrainStep(network, optimizer, float(sens), _get("pipeline_stages"))
    return ParallelTrainStep(network, optimizer, float(sens),
                             bool(_get("enable_parallel_optimizer")))


class ParallelTrainStep:
    """``step(*inputs) -> (loss, gradients of the slices)``; see the module doc."""

    def __init__(self, network, optimizer, sens: float = 1.0, parallel_optimizer=False):
        self.network = network
        self.optimizer = optimizer
        self.sens = sens
        self.parallel_optimizer = parallel_optimizer
        self.sharded = None

    def __call__(self, *inputs):
        self._ready(inputs)
        return self._run(*inputs)

    def _ready(self, inputs):
        if self.sharded is not None:
            return
        from ms_parallel.auto.full_view import attach, sharded_whole

        self._setup(self._global(inputs))
        self.full_view = attach(self.network, self.sharded.params,
                                lambda: sharded_whole(self.sharded))
        self._run, self._grads = self._step, self._loss_and_grads
        if get_context("mode") == GRAPH_MODE:
            # one graph per step: the input gather, the sharded forward and backward, the
            # gradient reductions and the optimizer, collectives as graph nodes
            from ms_graph import jit

            self._run = jit(self._step, capture_mode="trace")
            self._grads = jit(self._loss_and_grads, capture_mode="trace")

    def whole_parameters(self):
        """A context in which the network's Parameters hold their whole values (gathered
        from the slices; ``ms_parallel.auto.full_view``): what ``Model.eval``/``predict``
        run in."""
        from contextlib import nullcontext

        return nullcontext() if self.sharded is None else self.full_view.held()

    def loss_and_grads(self, inputs, sens):
        """``(loss, gradients of the slices summed over their ranks)`` with ``sens`` (a
        number or a one-value Tensor: a loss scale) seeding the backward pass; no update.
        What ``TrainOneStepWithLossScaleCell`` runs in place of its unsharded pass."""
        self._ready(inputs)
        if not isinstance(sens, Tensor):
            sens = Tensor(np.asarray(sens, np.float32))
        return self._grads(sens, *inputs)

    def any_rank(self, flag) -> Tensor:
        """A bool Tensor: ``flag`` is True on some rank (a slice's gradient overflowed
        there, so every rank skips the update)."""
        return any_rank(flag)

    def _step(self, *inputs):
        loss, grads = self._loss_and_grads(self.sens, *inputs)
        self.optimizer(grads)
        return loss, grads

    def _loss_and_grads(self, sens, *inputs):
        from ms_autodiff import value_and_grad
        from ms_ops import functional as F

        inputs = self._global(inputs)
        weights = list(self.optimizer.parameters)
        n = float(self.sharded.n)

        def objective(*xs):
            loss = self.sharded.loss(*xs)
            if isinstance(sens, Tensor):
                return loss * F.cast(sens, loss.dtype) / n, loss
            return loss * (sens / n), loss
        (_, loss), grads = value_and_grad(objective, None, weights, has_aux=True)(*inputs)
        return loss, tuple(self._reduce(weights, grads))

    # -- the first call --------------------------------------------------------------------
    def _global(self, inputs):
        if _get("full_batch"):
            return inputs
        from ms_parallel.management import get_group_size
        from ms_parallel.reduce_ops import AllGather

        if get_group_size() == 1:
            return inputs
        return tuple(AllGather(x) if isinstance(x, Tensor) and x.shape else x for x in inputs)

    def _setup(self, inputs):
        from ms_parallel.auto.execute import ShardedNet
        from ms_parallel.auto.graph import capture
        from ms_parallel.auto.planner import plan_from_context
        from ms_parallel.management import get_rank

        plan = plan_from_context(capture(self.network, *inputs))
        by_name = {p.name: p for p in self.network.trainable_params()}
        full = {name: p.asnumpy() for name, p in by_name.items()}
        self.sharded = slice_in_place(ShardedNet(plan, get_rank(), full), by_name,
                                      optimizer_state(self.optimizer), self.parallel_optimizer)
        save = (_get("strategy_ckpt_config") or {}).get("save_file") or \
            _get("strategy_ckpt_save_file")
        if save and self.sharded.parts:  # the layouts again, with the optimizer's parts
            plan.save(save, {k: ranks for k, (ranks, _) in self.sharded.parts.items()})
        if _get("group_ckpt_save_file"):
            from ms_parallel.auto.group_info import save_group_info

            save_group_info(self.sharded, _get("group_ckpt_save_file"))

    # -- every step ------------------------------------------------------------------------
    def _reduce(self, weights, grads):
        """Sum each slice's gradient over the ranks holding it (a part's gradient arrives
        summed: the adjoint of its AllGather)."""
        from ms_parallel.reduce_ops import AllReduce

        out = []
        for p, g in zip(weights, grads):
            if p.name in self.sharded.param_layout and p.name not in self.sharded.parts:
                ranks = self.sharded.replica_ranks(p.name)
                if len(ranks) > 1:
                    g = AllReduce(g, "sum", self.sharded.group(ranks))
            out.append(g)
        return out


def slice_in_place(sharded, by_name: dict, state: dict, parallel_optimizer: bool = False):
    """The network's own Parameters (``by_name``) and their optimizer state (``state``:
    name -> state Parameters shaped like it) now hold ``sharded``'s slices (or, with
    ``parallel_optimizer``, this rank's flat part of a slice that several ranks hold), and
    ``sharded`` computes with those Parameters. Returns ``sharded``."""
    from ms_parallel.auto.simulate import local_slice

    for name, lay in sharded.param_layout.items():
        param = by_name[name]
        slices = [local_slice(s.asnumpy(), lay, sharded.rank) for s in state.get(name, ())]
        param.set_data(sharded.params[name], slice_shape=True)
        sharded.params[name] = param  # the network's own Parameter now holds the slice
        ranks = sharded.replica_ranks(name)
        size = int(np.prod(param.shape))
        if parallel_optimizer and len(ranks) > 1 and size % len(ranks) == 0:
            # the Parameter itself becomes this rank's flat part of the slice
            part, k = size // len(ranks), ranks.index(sharded.rank)
            sharded.parts[name] = (ranks, tuple(param.shape))
            param.set_data(Tensor(np.ascontiguousarray(
                param.asnumpy().reshape(-1)[k * part:(k + 1) * part])), slice_shape=True)
            slices = [s.reshape(-1)[k * part:(k + 1) * part] for s in slices]
        for s, value in zip(state.get(name, ()), slices):
            s.set_data(Tensor(np.ascontiguousarray(value)), slice_shape=True)
    return sharded


def optimizer_state(optimizer) -> dict:
    """Parameter name -> the optimizer's state Parameters shaped like it (every tuple of
    Parameters aligned with ``optimizer.parameters``: moments, accumulators)."""
    from ms_tensor import Parameter

    params = list(optimizer.parameters)
    out: dict[str, list] = {p.name: [] for p in params}
    seen = {id(optimizer.parameters)}
    held = vars(optimizer)
    for value in [*held.values(), *held.get("_params_list", {}).values()]:
        for group in _tuples(value):
            if id(group) in seen or len(group) != len(params):
                continue
            seen.add(id(group))
            if all(isinstance(s, Parameter) and s is not p and s.shape == p.shape
                   for s, p in zip(group, params)):
                for s, p in zip(group, params):
                    out[p.name].append(s)
    return out


def any_rank(flag) -> Tensor:
    """A bool Tensor: the bool ``flag`` is True on some rank of the world."""
    from ms_ops import functional as F
    from ms_parallel.management import get_group_size
    from ms_parallel.reduce_ops import AllReduce

    if get_group_size() == 1:
        return flag
    count = AllReduce(F.reshape(F.cast(flag, ms_float32), (1,)), "sum")
    return F.reshape(F.greater(count, 0.0), ())


def _tuples(value):
    """The tuples of Parameters ``value`` holds (itself, or a list of such)."""
    if isinstance(value, tuple):
        yield value
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, tuple):
                yield v
