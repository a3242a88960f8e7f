"""Collectives of uneven flat blocks, as MindSpore 2.10 defines them: AllGatherV,
ReduceScatterV and AlltoAllVC.

Each takes a flat tensor and the element counts of every rank's block. AllGatherV's
gradient is ReduceScatterV of the cotangent with the same counts (and the reverse);
AlltoAllVC's is the AlltoAllVC with the count matrix transposed, which moves every block
back where it came from.
"""

from __future__ import annotations

from ms_ops import Arg, Attr, TensorSpec
from ms_ops import functional as F
from ms_ops.infer import check_dtype
from ms_ops.opdef import STATIC
from ms_parallel.collective_def import COMM_DTYPES, CollectiveDef, check_group, check_reduce_op
from ms_parallel.groups import WORLD

__all__ = ["AllGatherV", "ReduceScatterV", "AlltoAllVC"]


def _counts(name, value, n):
    if not isinstance(value, (list, tuple)) or len(value) != n or \
            any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in value):
        raise ValueError(f"{name} must be a list of {n} non-negative ints, got {value!r}")
    return list(value)


def _flat(x, n_elements):
    if x.ndim != 1 or x.shape[0] != n_elements:
        raise ValueError(f"input 'x' must be flat with {n_elements} elements, got shape "
                         f"{x.shape}")


def _allgatherv_infer(x, output_split_sizes, group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    g = check_group(group)
    sizes = _counts("output_split_sizes", output_split_sizes, g.size)
    _flat(x, sizes[g.rank])
    return TensorSpec((sum(sizes),), x.dtype)


AllGatherV = CollectiveDef(
    "AllGatherV", (Arg("x"), Arg("output_split_sizes", STATIC)), (Attr("group", WORLD),),
    infer=_allgatherv_infer,
    doc="Every rank's flat x (rank k's has output_split_sizes[k] elements) joined in rank "
        "order, on every rank.")


@AllGatherV.kernel("CPU", dtypes=COMM_DTYPES)
def _allgatherv_cpu(x, output_split_sizes, group=WORLD, state=None):
    return check_group(group).allgatherv(x, list(output_split_sizes))


@AllGatherV.bprop
def _allgatherv_bprop(x, output_split_sizes, out, dout, group=WORLD):
    return (ReduceScatterV(dout, output_split_sizes, "sum", group), None)


@AllGatherV.samples
def _allgatherv_samples(rng):
    yield (rng.standard_normal((3,)), [3]), {}


def _reduce_scatterv_infer(x, input_split_sizes, op="sum", group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    if check_reduce_op(op) == "prod":
        raise ValueError("op 'prod' is not supported (MindSpore's ReduceScatterV takes sum, "
                         "max or min)")
    g = check_group(group)
    sizes = _counts("input_split_sizes", input_split_sizes, g.size)
    _flat(x, sum(sizes))
    return TensorSpec((sizes[g.rank],), x.dtype)


ReduceScatterV = CollectiveDef(
    "ReduceScatterV", (Arg("x"), Arg("input_split_sizes", STATIC)),
    (Attr("op", "sum"), Attr("group", WORLD)), infer=_reduce_scatterv_infer,
    doc="Reduce all ranks' flat x elementwise (sum, max or min); rank k keeps the "
        "input_split_sizes[k] elements of its block.")


@ReduceScatterV.kernel("CPU", dtypes=COMM_DTYPES)
def _reduce_scatterv_cpu(x, input_split_sizes, op="sum", group=WORLD, state=None):
    return check_group(group).reduce_scatterv(x, list(input_split_sizes), op)


@ReduceScatterV.bprop
def _reduce_scatterv_bprop(x, input_split_sizes, out, dout, op="sum", group=WORLD):
    total = AllGatherV(dout, input_split_sizes, group)
    if op == "sum":
        return (total, None)
    full = AllGatherV(out, input_split_sizes, group)
    return (F.mul(total, F.cast(F.equal(x, full), x.dtype)), None)


@ReduceScatterV.samples
def _reduce_scatterv_samples(rng):
    for op in ("sum", "max"):
        yield (rng.standard_normal((4,)), [4]), {"op": op}


def _matrix(value, n, transpose):
    rows = _counts("send_count_matrix", value, n * n)
    m = [rows[i * n:(i + 1) * n] for i in range(n)]
    return [list(r) for r in zip(*m)] if transpose else m


def _alltoallvc_infer(x, send_count_matrix, group=WORLD, block_size=1, transpose=False):
    check_dtype("x", x, COMM_DTYPES)
    g = check_group(group)
    if not isinstance(block_size, int) or isinstance(block_size, bool) or block_size < 1:
        raise ValueError(f"block_size must be a positive int, got {block_size!r}")
    m = _matrix(send_count_matrix, g.size, transpose)
    _flat(x, sum(m[g.rank]) * block_size)
    return TensorSpec((sum(row[g.rank] for row in m) * block_size,), x.dtype)


AlltoAllVC = CollectiveDef(
    "AlltoAllVC", (Arg("x"), Arg("send_count_matrix", STATIC)),
    (Attr("group", WORLD), Attr("block_size", 1), Attr("transpose", False)),
    infer=_alltoallvc_infer,
    doc="Uneven AlltoAll from one count matrix: send_count_matrix[i * n + j] * block_size "
        "elements go from rank i to rank j (transpose=True reads the matrix transposed); "
        "the result joins what each rank sent here, in rank order.")


@AlltoAllVC.kernel("CPU", dtypes=COMM_DTYPES)
def _alltoallvc_cpu(x, send_count_matrix, group=WORLD, block_size=1, transpose=False,
                    state=None):
    g = check_group(group)
    m = _matrix(send_count_matrix, g.size, transpose)
    send = [c * block_size for c in m[g.rank]]
    recv = [row[g.rank] * block_size for row in m]
    return g.alltoallv(x, send, recv)


@AlltoAllVC.bprop
def _alltoallvc_bprop(x, send_count_matrix, out, dout, group=WORLD, block_size=1,
                      transpose=False):
    return (AlltoAllVC(dout, send_count_matrix, group, block_size, not transpose), None)


@AlltoAllVC.samples
def _alltoallvc_samples(rng):
    yield (rng.standard_normal((4,)), [2]), {"block_size": 2}
