"""Checkpoints of a sharded run: one file per rank, merged into one, or one split into slices.

As MindSpore's ``merge``/``transform_checkpoints``: every rank saves its Parameter slices
(``save_sharded``: ``rank_{r}.ckpt``, and from rank 0 ``layouts.json`` with each Parameter's
full shape and layout); ``merge_checkpoints`` places the slices of all ranks into whole
Parameters (checking that ranks holding the same slice agree) and writes one checkpoint a
single-process run loads; ``load_sharded`` is the reverse: a whole checkpoint read into a
``ShardedNet``, each rank keeping its slices. Files go through ms-nn's checkpoint writer
(atomic, no pickle).
"""

from __future__ import annotations

import json
import os

import numpy as np

from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.simulate import gather, local_slice
from ms_tensor import Tensor

__all__ = ["save_sharded", "merge_checkpoints", "load_sharded"]

LAYOUTS = "layouts.json"


def save_sharded(sharded, directory) -> None:
    """This rank's slices to ``directory/rank_{r}.ckpt`` (rank 0 also writes the layouts)."""
    os.makedirs(directory, exist_ok=True)
    save_checkpoint([{"name": k, "data": p} for k, p in sorted(sharded.params.items())],
                    os.path.join(directory, f"rank_{sharded.rank}.ckpt"))
    if sharded.rank == 0:
        shapes = sharded.graph.param_shapes()
        data = {"device_num": sharded.n, "parameters": {
            name: {"shape": list(shapes[name]), "dev_matrix": list(lay.dev_matrix),
                   "tensor_map": [list(a) for a in lay.tensor_map]}
            for name, lay in sorted(sharded.param_layout.items())}}
        tmp = os.path.join(directory, f".{LAYOUTS}.tmp")
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, os.path.join(directory, LAYOUTS))


def _layouts(directory):
    path = os.path.join(directory, LAYOUTS)
    try:
        with open(path) as f:
            data = json.load(f)
        return data["device_num"], {
            k: (tuple(v["shape"]), TensorLayout(v["dev_matrix"], v["tensor_map"]))
            for k, v in data["parameters"].items()}
    except FileNotFoundError:
        raise FileNotFoundError(f"merge_checkpoints: {path} is missing; save_sharded writes "
                                "it from rank 0") from None
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"merge_checkpoints: {path} is not a layouts file ({e})") from None


def merge_checkpoints(directory, out_file) -> None:
    """One checkpoint of whole Parameters from the per-rank files in ``directory``."""
    n, layouts = _layouts(directory)
    ranks = []
    for r in range(n):
        path = os.path.join(directory, f"rank_{r}.ckpt")
        if not os.path.exists(path):
            raise FileNotFoundError(f"merge_checkpoints: {path} is missing ({n} ranks saved "
                                    f"layouts in {directory})")
        ranks.append(load_checkpoint(path))
    whole = []
    for name, (shape, lay) in layouts.items():
        pieces = [ranks[r][name].asnumpy() for r in range(n)]
        try:
            full = gather(pieces, lay, shape, atol=0)
        except ValueError as e:
            raise ValueError(f"merge_checkpoints: Parameter {name!r}: {e}") from None
        whole.append({"name": name, "data": Tensor(full)})
    save_checkpoint(whole, out_file)


def load_sharded(sharded, ckpt_file) -> None:
    """Read a whole (single-process) checkpoint into ``sharded``: this rank's slices."""
    params = load_checkpoint(ckpt_file)
    for name, prm in sharded.params.items():
        if name not in params:
            raise ValueError(f"load_sharded: {ckpt_file} has no Parameter {name!r}")
        full = params[name].asnumpy()
        want = sharded.graph.param_shapes()[name]
        if tuple(full.shape) != tuple(want):
            raise ValueError(f"load_sharded: {name!r} in {ckpt_file} has shape {full.shape}, "
                             f"the network's is {tuple(want)}")
        prm.set_data(Tensor(np.ascontiguousarray(
            local_slice(full, sharded.param_layout[name], sharded.rank))))
