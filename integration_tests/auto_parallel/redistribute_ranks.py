"""Random pairs of layouts of random shapes, redistributed on the launcher's ranks.

Every rank draws the same pairs (one seed), holds its slice of a tensor under the source
layout (summands for partial axes), runs the planned collectives and checks that its result
is its slice of the same tensor under the target layout. Prints ``checked K`` on rank 0.

usage: redistribute_ranks.py --cases K --seed S
"""

import argparse

import numpy as np

from ms_parallel.auto.execute import redistribute
from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.redistribution import plan_redistribution
from ms_parallel.auto.simulate import local_slice, scatter
from ms_parallel.management import create_group, get_group_size, get_rank, init
from ms_tensor import Tensor

p = argparse.ArgumentParser()
p.add_argument("--cases", type=int, default=30)
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
init()
rank, n = get_rank(), get_group_size()
groups: dict = {}


def group_for(ranks):
    key = tuple(ranks)
    if key not in groups:
        groups[key] = "redist-" + "-".join(map(str, key))
        create_group(groups[key], list(key))
    return groups[key]


def factorizations(n):
    out = [(n,)]
    for d in range(2, n):
        if n % d == 0:
            out += [(d,) + rest for rest in factorizations(n // d)]
    return out


def draw(rng, ndim, partial_ok):
    mats = factorizations(n)
    dev = mats[rng.integers(len(mats))]
    where = rng.integers(-2 if partial_ok else -1, ndim, len(dev))
    order = rng.permutation(len(dev))
    tmap = [tuple(int(a) for a in order if where[a] == d) for d in range(ndim)]
    return TensorLayout(dev, tmap, [int(a) for a in order if where[a] == -2])


rng = np.random.default_rng(args.seed)
for case in range(args.cases):
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(rng.choice([n, 2 * n, 3 * n * 2])) for _ in range(ndim))
    src, dst = draw(rng, ndim, True), draw(rng, ndim, False)
    full = rng.standard_normal(shape)
    pieces = scatter(full, src, np.random.default_rng(case))
    out = redistribute(Tensor(pieces[rank]), src, dst, shape, rank, group_for, 8)
    want = local_slice(full, dst, rank)
    plan = plan_redistribution(src, dst, shape, 8)
    assert np.allclose(out.asnumpy(), want, atol=1e-12), (case, src, dst, shape, str(plan))
if rank == 0:
    print(f"checked {args.cases}", flush=True)
