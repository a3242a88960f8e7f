"""``Cell.recompute()``: what it saves and what it costs, against PyTorch's checkpoint.

The network: 4 residual blocks ``x + Dense(1024→256)(GeLU(Dense(256→1024)(x)))``, batch 64,
float32, loss ``mean(y ** 2)``; "marked" recomputes every block (microspore:
``block.recompute()``; PyTorch: ``torch.utils.checkpoint.checkpoint(block, x,
use_reentrant=False)``). One sample is one ``value_and_grad`` step (PyTorch: forward and
``backward``). Within each framework plain and marked interleave (A B, A B, ...), after
checking that both give the same loss; the table shows medians and marked over plain.
Memory, measured once:

* the activation bytes microspore's PyNative tape holds after the forward pass (the arrays
  its nodes keep for their gradient rules, Parameters not counted);
* the bytes of the residuals ``grad(jit(f))`` keeps between its forward and backward graphs;
* PyTorch: the bytes its autograd graph saves (``saved_tensors_hooks``, weights not
  counted).

Usage: ``python benchmarks/bench_recompute.py [--quick] [--case microspore|PyTorch]``.
"""

from __future__ import annotations

import os

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import (
    QUICK_NOTE,
    Row,
    arg_parser,
    check_agreement,
    load_line,
    machine,
    median_iqr,
    num,
    run_rounds,
)

BATCH, WIDTH, HIDDEN, BLOCKS = 64, 256, 1024, 4


def microspore_rows():
    from ms_graph import jit

    import microspore as ms
    from microspore import nn, ops
    from ms_autodiff.tape import Tape
    from ms_tensor import Tensor
    from ms_tensor.tensor import array_of

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.up, self.down = nn.Dense(WIDTH, HIDDEN), nn.Dense(HIDDEN, WIDTH)

        def construct(self, x):
            return x + self.down(ops.gelu(self.up(x)))

    ms.set_seed(0)
    nets = {}
    for marked in (False, True):
        net = nn.SequentialCell([Block() for _ in range(BLOCKS)])
        if marked:
            for c in net.cells():
                c.recompute()
        nets[marked] = net
    for p, q in zip(nets[False].get_parameters(), nets[True].get_parameters()):
        array_of(q)[...] = array_of(p)
    x = Tensor(np.random.default_rng(0).standard_normal((BATCH, WIDTH)).astype(np.float32))
    memory, rows = {}, []
    for marked, net in nets.items():
        def loss(x, net=net):
            return (net(x) ** 2).mean()

        step = ms.value_and_grad(loss, None, net.trainable_params())
        params = {id(array_of(p)) for p in net.get_parameters()}
        with Tape() as tape:
            for p in net.trainable_params():
                tape.watch(p)
            loss(x)
            held = sum({id(a): a.nbytes for n in tape.nodes for a in n.arrays
                        if a is not None and id(a) not in params}.values())
        compiled = jit(loss)
        ms.grad(compiled, None, net.trainable_params())(x)
        dg = next(iter(compiled._cache.values())).executable
        residual = sum(int(np.prod(v.spec.shape)) * 4
                       for v in dg.forward.graph.outputs[dg.n_outputs:])
        memory[marked] = (held, residual)
        rows.append(Row("microspore", "marked" if marked else "plain",
                        lambda s=step: _common.timed(lambda: s(x)),
                        lambda s=step: _common.digest(s(x)[0].asnumpy())))
    return rows, memory


def torch_rows():
    import torch
    from torch.utils.checkpoint import checkpoint

    torch.set_num_threads(_common.THREADS)
    torch.manual_seed(0)
    blocks = [torch.nn.Sequential(torch.nn.Linear(WIDTH, HIDDEN), torch.nn.GELU(),
                                  torch.nn.Linear(HIDDEN, WIDTH)) for _ in range(BLOCKS)]
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((BATCH, WIDTH))
                         .astype(np.float32))
    weights = {p.data_ptr() for b in blocks for p in b.parameters()}

    def run(marked):
        y = x
        for b in blocks:
            y = y + (checkpoint(b, y, use_reentrant=False) if marked else b(y))
        loss = (y ** 2).mean()
        loss.backward()
        return loss

    def saved(marked):
        total = {}

        def pack(t):
            if t.data_ptr() not in weights:
                total[t.data_ptr()] = t.numel() * t.element_size()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = x
            for b in blocks:
                y = y + (checkpoint(b, y, use_reentrant=False) if marked else b(y))
        return sum(total.values())

    rows = [Row("PyTorch", "marked" if m else "plain",
                lambda m=m: _common.timed(lambda: run(m)),
                lambda m=m: _common.digest(run(m).detach().numpy())) for m in (False, True)]
    return rows, {m: saved(m) for m in (False, True)}


def main():
    args = arg_parser(__doc__, ["microspore", "PyTorch"]).parse_args()
    before = os.getloadavg()[0]
    rows, memory = microspore_rows()
    try:
        trows, tmemory = torch_rows()
    except ImportError:
        trows, tmemory = [], {}
    notes: list[str] = []
    rows = check_agreement(rows + trows, notes, "plain", atol=1e-6)
    rounds = 5 if args.quick else 21
    cases = [c for c in ("microspore", "PyTorch") if any(r.case == c for r in rows)]
    for case in cases:
        run_rounds(rows, case, rounds, warmup=2, settle_s=0.0)
    print(machine())
    print(load_line(before))
    print(f"Medians over {rounds} rounds after warm-up, plain and marked interleaved."
          + (QUICK_NOTE if args.quick else ""))
    print("\n| framework | plain step (ms) | marked step (ms) | marked / plain |")
    print("|---|---|---|---|")
    for case in cases:
        plain, marked = (median_iqr(r.samples)[0] for r in rows if r.case == case)
        print(f"| {case} | {num(plain * 1e3)} | {num(marked * 1e3)} | {marked / plain:.2f} |")
    print("\n| bytes kept for the backward | plain | marked |")
    print("|---|---|---|")
    print(f"| microspore PyNative tape (activations) | {memory[False][0]:,} | "
          f"{memory[True][0]:,} |")
    print(f"| microspore grad(jit) residuals | {memory[False][1]:,} | {memory[True][1]:,} |")
    if tmemory:
        print(f"| PyTorch autograd saved tensors | {tmemory[False]:,} | {tmemory[True]:,} |")
    for note in notes:
        print(f"\n{note}")


if __name__ == "__main__":
    main()
