"""Run by test_management.py with and without the launcher: ranks, groups, release."""

import sys

import numpy as np

from ms_parallel import management as m
from ms_parallel.groups import CommError
from ms_parallel.reduce_ops import AllGather, AllReduce
from ms_tensor import Tensor

launched = sys.argv[1] == "launched"
if launched:
    try:
        AllReduce(Tensor(np.ones(2)))
    except CommError as e:
        assert "call microspore.communication.init() first" in str(e), e
    else:
        raise AssertionError("a collective before init() under a launcher must fail")
else:
    assert (m.get_rank(), m.get_group_size()) == (0, 1)  # rank 0 of 1 without init

for bad in ("gloo", 3):
    try:
        m.init(bad)
    except ValueError as e:
        assert "backend_name must be one of" in str(e)
    else:
        raise AssertionError(f"init({bad!r}) must fail")
m.init("nccl")
assert m.GlobalComm.INITED and m.GlobalComm.BACKEND == "nccl"
r, n = m.get_rank(), m.get_group_size()
assert m.get_group_size("nccl_world_group") == n and m.get_rank("mccl_world_group") == r
assert m.get_local_rank() == r and m.get_local_rank_size() == n  # one machine
assert m.get_process_group_ranks() == list(range(n))

evens = list(range(0, n, 2))
if r in evens:
    m.create_group("evens", evens)
    assert m.get_group_size("evens") == len(evens)
    assert m.get_rank("evens") == evens.index(r)
    assert m.get_world_rank_from_group_rank("evens", m.get_rank("evens")) == r
    assert m.get_group_rank_from_world_rank(r, "evens") == evens.index(r)
    got = AllGather(Tensor(np.array([float(r)])), "evens").asnumpy()
    assert got.tolist() == [float(e) for e in evens], got
    for call, match in ((lambda: m.create_group("evens", evens), "already exists"),
                        (lambda: m.get_world_rank_from_group_rank("evens", 99), "has ranks"),
                        (lambda: m.create_group("bad", [0, 0]), "distinct ranks")):
        try:
            call()
        except ValueError as e:
            assert match in str(e), e
        else:
            raise AssertionError(match)
    m.destroy_group("evens")
    try:
        m.get_rank("evens")
    except CommError as e:
        assert "unknown communication group 'evens'" in str(e)
else:
    try:
        m.create_group("evens", evens)
    except ValueError as e:
        assert "only its members may" in str(e)
out = AllReduce(Tensor(np.array([1.0])))
assert out.asnumpy().tolist() == [float(n)]
m.release()
assert not m.is_initialized()
m.init()
assert m.get_group_size() == n
print(f"rank {r} of {n}: management ok", flush=True)
