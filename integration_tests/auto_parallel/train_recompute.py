"""``Cell.recompute()`` in sharded training on the launcher's ranks, checked against one
process without it.

``sharded``: a Megatron pair (column- then row-parallel MatMul) in a marked Cell, planned
with semi-auto parallel; every rank trains its slices (``ShardedNet``) and asserts the
losses and gradients of the unmarked single-process run, that the captured plan knows the
pair's three operators as one recomputed region, and that its tape keeps fewer bytes than
the same ShardedNet without the mark; a ``jit``-compiled step equals the eager one and
its graph reruns the pair. ``zero`` (4 ranks): the pair cut over batch and model, each
replicated slice kept as parts (optimizer parallel), marked = unmarked step for step.
``pipeline``: one pipeline stage sharded over all the ranks (``PipelineCell(...,
width=n)``) whose second and fourth cells are marked, trained with SGD for three steps
against the unmarked single process; ``stages``: the same in two stages sharded over half
the ranks each (4 ranks). Each rank prints ``rank R ok``.

usage: train_recompute.py sharded|zero|pipeline|stages
"""

import sys

import numpy as np
from ms_graph import jit

from ms_autodiff import value_and_grad
from ms_autodiff.tape import Tape
from ms_nn import Cell, MSELoss, SequentialCell
from ms_nn.optim.optimizer import assign
from ms_ops import Add, MatMul, ReduceMean, ReLU
from ms_parallel.auto.execute import ShardedNet
from ms_parallel.auto.graph import capture
from ms_parallel.auto.pipeline import PipelineCell
from ms_parallel.auto.planner import plan
from ms_parallel.auto.simulate import local_slice
from ms_parallel.auto.topology import Topology
from ms_parallel.auto.train import slice_in_place
from ms_parallel.context import reset_auto_parallel_context, set_auto_parallel_context
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor
from ms_tensor.tensor import array_of


class Pair(Cell):
    def __init__(self, n, seed, d=1):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w1 = Parameter(Tensor(rng.standard_normal((8, 32)) * 0.3), name=f"p{seed}.w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((32, 8)) * 0.3), name=f"p{seed}.w2")
        m = n // d  # d: the batch cut d ways too (the weights then have replicas)
        self.mm1 = MatMul().shard(((d, 1), (1, m)))  # column parallel
        self.relu = ReLU()
        self.mm2 = MatMul().shard(((d, m), (m, 1)))  # row parallel: partial sums

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


class Net(Cell):
    def __init__(self, n, marked, d=1):
        super().__init__()
        self.pair = Pair(n, 0, d)
        self.b = Parameter(Tensor(np.full(8, 0.1)), name="b")
        self.add, self.mean = Add(), ReduceMean()
        if marked:
            self.pair.recompute()

    def construct(self, x):
        y = self.add(self.pair(x), self.b)
        return self.mean(y * y)


def held_bytes(sharded, x):
    """Bytes of the arrays the tape keeps after the forward pass."""
    with Tape() as tape:
        for p in sharded.params.values():
            tape.watch(p)
        sharded.loss_for_grad(x)
        return sum({id(a): a.nbytes for nd in tape.nodes for a in nd.arrays
                    if a is not None}.values())


def sharded(rank, n):
    x = Tensor(np.random.default_rng(1).standard_normal((16, 8)))
    nets = {m: Net(n, m) for m in (False, True)}
    full = {p.name: p.asnumpy().copy() for p in nets[False].trainable_params()}
    runs = {}
    for m, net in nets.items():
        result = plan(capture(net, x), Topology(device_num=n), "sharding_propagation")
        runs[m] = ShardedNet(result, rank, full)
    regions = {nd.recompute for nd in runs[True].graph.nodes}
    assert [nd.name.split("-")[0] for nd in runs[True].graph.nodes
            if nd.recompute is not None] == ["MatMul", "ReLU", "MatMul"], regions
    assert all(nd.recompute is None for nd in runs[False].graph.nodes)
    names = sorted(full)
    got = {}
    for m, s in runs.items():
        f = value_and_grad(s.loss_for_grad, None, [s.params[k] for k in names])
        share, grads = f(x)
        got[m] = float(share.asnumpy()) * n, [g.asnumpy() for g in grads]
    loss_ref, grads_ref = value_and_grad(nets[False], None,
                                         nets[False].trainable_params())(x)
    ref = dict(zip([p.name for p in nets[False].trainable_params()], grads_ref))
    for m in (False, True):
        assert abs(got[m][0] - float(loss_ref.asnumpy())) < 1e-10, (m, got[m][0])
        for k, g in zip(names, got[m][1]):
            red = runs[m].reduce_gradients({k: Tensor(g)})[k].asnumpy()
            want = local_slice(ref[k].asnumpy(), runs[m].param_layout[k], rank)
            np.testing.assert_allclose(red, want, rtol=1e-9, atol=1e-12, err_msg=k)
    plain, marked = held_bytes(runs[False], x), held_bytes(runs[True], x)
    # the pair's (16, 32 / n) activations leave the tape: MatMul's and ReLU's outputs
    assert plain - marked >= 2 * 16 * (32 // n) * 8, (plain, marked)
    print(f"rank {rank} tape bytes plain {plain} recomputed {marked}", flush=True)
    compiled(runs[True].plan, rank, full, x)


def trainer(s):
    names = sorted(s.params)
    weights = [s.params[k] for k in names]
    grad = value_and_grad(s.loss_for_grad, None, weights)

    def step(x):
        loss, grads = grad(x)
        grads = s.reduce_gradients(dict(zip(names, grads)))
        for k, w in zip(names, weights):
            assign(w, w - 0.1 * grads[k])
        return loss
    return step


def compiled(result, rank, full, x):
    """A jit-compiled sharded step with the marked pair equals the eager one, step for
    step, and its graph reruns the pair's operators (``Node.recompute``)."""
    eager_net, graph_net = ShardedNet(result, rank, full), ShardedNet(result, rank, full)
    eager, step = trainer(eager_net), jit(trainer(graph_net), capture_mode="trace")
    for k in range(3):
        xk = x * float(k + 1)
        a, b = float(eager(xk).asnumpy()), float(step(xk).asnumpy())
        assert abs(a - b) <= 1e-12 * max(1.0, abs(a)), (k, a, b)
    (graph,) = step.graphs()
    rerun = [nd.name for nd in graph.nodes if nd.recompute is not None]
    assert "MatMul" in rerun and "ReLU" in rerun, rerun
    for name in eager_net.params:
        np.testing.assert_allclose(graph_net.params[name].asnumpy(),
                                   eager_net.params[name].asnumpy(), rtol=0, atol=1e-12)


def zero(rank, n):
    """Optimizer parallel (ZeRO-1) over the replicas of a batch- and model-cut pair: the
    marked run gathers the Parameter parts inside its recomputed region; its losses and
    parts equal the unmarked run's, step for step."""
    x = Tensor(np.random.default_rng(1).standard_normal((16, 8)))
    nets = {m: Net(n, m, d=2) for m in (False, True)}
    full = {p.name: p.asnumpy().copy() for p in nets[False].trainable_params()}
    losses, parts = {}, {}
    for m, net in nets.items():
        s = ShardedNet(plan(capture(net, x), Topology(device_num=n), "sharding_propagation"),
                       rank, full)
        slice_in_place(s, {p.name: p for p in net.trainable_params()}, {},
                       parallel_optimizer=True)
        assert s.parts, "the replicated slices are kept as parts"
        names = sorted(s.params)
        f = value_and_grad(s.loss_for_grad, None, [s.params[k] for k in names])
        losses[m] = []
        for k in range(3):
            share, grads = f(x * float(k + 1))
            losses[m].append(float(share.asnumpy()))
            for name, g in zip(names, grads):  # SGD on this rank's parts
                array_of(s.params[name])[...] -= 0.1 * g.asnumpy()
        parts[m] = {k: s.params[k].asnumpy() for k in names}
    np.testing.assert_allclose(losses[True], losses[False], rtol=1e-12)
    for k, v in parts[False].items():
        np.testing.assert_allclose(parts[True][k], v, rtol=1e-10, atol=1e-13, err_msg=k)


class Dense(Cell):
    def __init__(self, name, rows, cols, seed, cut, n):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w = Parameter(Tensor((rng.standard_normal((rows, cols)) * 0.4).astype(np.float32)),
                           name=name)
        self.mm, self.relu = MatMul(), ReLU()
        self.mm.shard(((1, 1), (1, n)) if cut == "column" else ((1, n), (n, 1)))

    def construct(self, x):
        return self.relu(self.mm(x, self.w))


def pipeline(rank, n, stages=1):
    width = n // stages

    def network(marked):
        cells = [Dense("w0", 6, 16, 0, "column", width), Dense("w1", 16, 16, 1, "row", width),
                 Dense("w2", 16, 16, 2, "column", width), Dense("w3", 16, 6, 3, "row", width)]
        for i, c in enumerate(cells):
            c.pipeline_stage = i * stages // len(cells)
        if marked:
            cells[1].recompute()
            cells[3].recompute()
        return SequentialCell(cells)

    rng = np.random.default_rng(2)
    x = Tensor(rng.standard_normal((8, 6)).astype(np.float32))
    y = Tensor(rng.standard_normal((8, 6)).astype(np.float32))
    single, piped = network(False), network(True)
    ref = value_and_grad(lambda a, b: MSELoss()(single(a), b), None, single.trainable_params())
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=width)
    stage = PipelineCell(piped, MSELoss(), 2, rank // width, stages, width=width,
                         local=rank % width, on_shard=lambda sharded, by_name: None)
    assert not stage.recompute  # one cell of the stage marked: per-cell recompute
    last = rank // width == stages - 1
    for k in range(3):
        loss, grads = stage.step(x, y)
        loss_ref, grads_ref = ref(x, y)
        if last:
            assert abs(float(loss.asnumpy()) - float(loss_ref.asnumpy())) < 1e-5, (k, loss)
        if k == 0:
            marked = [nd for nd in stage.sharded.graph.nodes if nd.recompute is not None]
            assert [nd.name.split("-")[0] for nd in marked] == \
                ["MatMul", "ReLU"] * (2 // stages), marked
        for prm, g in zip(stage.params, grads):
            array_of(prm)[...] -= 0.1 * g.asnumpy()
        for prm, g in zip(single.trainable_params(), grads_ref):
            array_of(prm)[...] -= 0.1 * g.asnumpy()
    mine = {p.name for p in stage.params}
    for prm in single.trainable_params():  # this rank's slices of the trained weights
        if prm.name in mine:
            got = next(p for p in stage.params if p.name == prm.name).asnumpy()
            want = local_slice(prm.asnumpy(), stage.sharded.param_layout[prm.name],
                               rank % width)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=prm.name)
    reset_auto_parallel_context()


def main():
    init()
    rank, n = get_rank(), get_group_size()
    {"sharded": sharded, "pipeline": pipeline, "zero": zero,
     "stages": lambda r, m: pipeline(r, m, stages=2)}[sys.argv[1]](rank, n)
    print(f"rank {rank} ok", flush=True)


if __name__ == "__main__":
    main()
