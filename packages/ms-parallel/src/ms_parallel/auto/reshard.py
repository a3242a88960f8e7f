"""``mindspore.reshard(tensor, layout)``: pin one tensor's layout inside a sharded network.

In SEMI_AUTO_PARALLEL or AUTO_PARALLEL (search mode ``"sharding_propagation"``) the call
records a ``Reshard`` operator: the identity, carrying the layout in its attributes. The
planner pins that node to exactly this layout (device matrix and tensor map, not only the
cut counts), sharding propagation plans the operators around it from it, and the sharded
run (``ShardedNet``) inserts the redistribution into and out of it. A SEMI_AUTO_PARALLEL
network that calls ``reshard`` is planned by sharding propagation, as MindSpore switches to
it. Outside those modes it returns the tensor itself, as MindSpore's does on one device.

Unlike MindSpore, the argument types are checked in every mode (a wrong call fails on one
process as it would on many), and layouts that cut a dimension by several axes or
replicate over some axes are accepted.
"""

from __future__ import annotations

from ms_ops import Arg, Attr, OpDef, TensorSpec
from ms_parallel.auto.layout import Layout, TensorLayout
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

__all__ = ["Reshard", "reshard", "layout_of"]


def _reshard_infer(x, dev_matrix, tensor_map):
    """The input's spec. In a sharded run ``x`` is a slice, so only the rank is checked."""
    lay = layout_of({"dev_matrix": dev_matrix, "tensor_map": tensor_map})
    if len(lay.tensor_map) != x.ndim:
        raise ValueError(f"Reshard: the layout maps {len(lay.tensor_map)} dimensions, input "
                         f"'x' has shape {x.shape}")
    return TensorSpec(x.shape, x.dtype)


Reshard = OpDef(
    "Reshard", (Arg("x"),), (Attr("dev_matrix"), Attr("tensor_map")), infer=_reshard_infer,
    doc="The identity; the sharding planner pins its tensor to the layout of its attributes "
        "(device matrix, and per dimension the device axes that cut it, counted from the "
        "left). What mindspore.reshard records.")


@Reshard.kernel("CPU", dtypes=frozenset(mstype.all_types))
def _reshard_cpu(x, dev_matrix, tensor_map):
    return x.copy()


@Reshard.bprop
def _reshard_bprop(x, out, dout, dev_matrix, tensor_map):
    return (dout,)


@Reshard.samples
def _reshard_samples(rng):
    yield (rng.standard_normal((4, 3)),), {"dev_matrix": (2, 2), "tensor_map": ((0,), ())}
    yield (rng.standard_normal((4, 2)),), {"dev_matrix": (2, 2), "tensor_map": ((0, 1), ())}


def layout_of(attrs: dict) -> TensorLayout:
    """The layout a ``Reshard`` node's attributes describe."""
    return TensorLayout(attrs["dev_matrix"], attrs["tensor_map"])


def reshard(tensor, layout):
    """``tensor``, its layout pinned to ``layout`` (``ms.Layout(...)`` called with one alias
    per dimension, e.g. ``layout("dp", "None")``); see the module doc.

    >>> import numpy as np
    >>> from ms_parallel.auto.layout import Layout
    >>> x = Tensor(np.ones((4, 2), np.float32))
    >>> reshard(x, Layout((2, 1), ("dp", "mp"))("dp", "None")) is x  # no parallel mode
    True
    """
    from ms_parallel.context import get_auto_parallel_context as get

    if not isinstance(tensor, Tensor):
        raise TypeError(f"Reshard takes in Tensor type as the first input param, but got: "
                        f"{type(tensor).__name__}")
    if isinstance(layout, Layout):
        raise ValueError(f"reshard: {layout!r} has no tensor map; call it with one alias "
                         f"(or 'None') per tensor dimension, e.g. layout('dp', 'None')")
    if not isinstance(layout, TensorLayout):
        raise TypeError(f"Reshard only support type mindspore.Layout, but got: "
                        f"{type(layout).__name__}")
    if layout.partial:
        raise ValueError(f"reshard: {layout} is partial; a pinned tensor holds its values, "
                         "not summands")
    if len(layout.tensor_map) != len(tensor.shape):
        raise ValueError(f"reshard: the layout maps {len(layout.tensor_map)} dimensions, the "
                         f"tensor has shape {tuple(tensor.shape)}")
    mode = get("parallel_mode")
    if mode not in ("semi_auto_parallel", "auto_parallel"):
        return tensor
    if mode == "auto_parallel" and get("search_mode") != "sharding_propagation":
        raise ValueError(f"reshard: in AUTO_PARALLEL the search_mode must be "
                         f"'sharding_propagation', got {get('search_mode')!r}")
    return Reshard(tensor, layout.dev_matrix, layout.tensor_map)
