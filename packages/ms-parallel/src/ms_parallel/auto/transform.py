"""MindSpore's distributed-checkpoint functions over per-rank checkpoint files.

A sharded run saves one checkpoint per rank (its Parameter slices, and the optimizer state
sliced alike) and a strategy file with each Parameter's layout (``strategy_file``). These
functions rebuild whole values from the ranks' files and cut them for another layout:
``transform_checkpoints`` (directories ``rank_k/``), ``transform_checkpoint_by_rank`` (one
destination rank), ``rank_list_for_transform`` (which source ranks that needs),
``load_distributed_checkpoint`` (into a network, whole or as this rank's slices) and
``get_ckpt_path_with_strategy`` (a replica's file when this rank's is missing). A strategy of
None means one device, nothing sharded.

A checkpoint entry that the strategy does not name takes the layout of the Parameter whose
name ends it (``moments.w1`` -> ``w1``: optimizer state) when its shape fits, else it is
replicated: it is taken from the lowest rank given.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ms_nn.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from ms_parallel.auto.execute import _along
from ms_parallel.auto.simulate import local_slice
from ms_parallel.auto.strategy_file import read_layouts
from ms_tensor import Parameter, Tensor

__all__ = ["transform_checkpoints", "transform_checkpoint_by_rank", "rank_list_for_transform",
           "load_distributed_checkpoint", "get_ckpt_path_with_strategy"]


def _free_axes(lay):
    used = {a for axes in lay.tensor_map for a in axes}
    return [a for a in range(len(lay.dev_matrix)) if a not in used]


def _opt_ranks(item, rank):
    """The ranks whose parts make up ``rank``'s slice (itself alone without optimizer
    parallel)."""
    if item.opt_weight_shard_size <= 1:
        return [rank]
    ranks = _along(item.layout.dev_matrix, _free_axes(item.layout), rank)
    if len(ranks) != item.opt_weight_shard_size:
        raise ValueError(f"opt_weight_shard_size {item.opt_weight_shard_size} differs from the "
                         f"{len(ranks)} ranks holding each slice; only a split over all of them "
                         "is read")
    return ranks


def _item_for(name, layouts, shape):
    """The layout of checkpoint entry ``name`` (see the module doc), or None: replicated."""
    if name in layouts:
        return layouts[name]
    for pname, item in layouts.items():
        if name.endswith("." + pname):
            return item
    return None


def _whole(name, pieces: dict, item):
    """Entry ``name``'s whole value from ``{rank: its array}`` under ``item``, and where the
    pieces given cover it (a rank's optimizer part alone covers its rows of the slice)."""
    if item is None:
        value = pieces[min(pieces)]
        return value, np.ones(value.shape, bool)
    lay = item.layout
    any_piece = pieces[min(pieces)]
    if item.param_shape is not None:
        whole_shape = item.param_shape
    else:  # from a slice: parts of it are split along the first dimension
        local = list(any_piece.shape)
        if len(local) != len(lay.tensor_map):
            raise ValueError(f"Parameter {name!r}: its checkpoint pieces have shape "
                             f"{tuple(local)}, the layout {len(lay.tensor_map)} dimensions, "
                             "and the strategy file has no whole shape (MindSpore's protobuf "
                             "keeps none): flat optimizer-parallel parts are re-cut from a "
                             "JSON strategy file (a save_file ending in .json)")
        if item.opt_weight_shard_size > 1:
            local[0] *= item.opt_weight_shard_size
        whole_shape = tuple(n * s for n, s in zip(local, lay.shards))
    local = lay.slice_shape(whole_shape)
    out = np.zeros(whole_shape, any_piece.dtype)
    seen = np.zeros(whole_shape, bool)
    for r in sorted(pieces):
        group = _opt_ranks(item, r)
        index = tuple(slice(b * n, (b + 1) * n) for b, n in zip(lay.block(r), local))
        if all(q in pieces for q in group):
            out[index] = np.concatenate([pieces[q].reshape(-1) for q in group]).reshape(local)
            seen[index] = True
        elif local and local[0] % len(group) == 0:
            step, k = local[0] // len(group), group.index(r)
            rows = (slice(index[0].start + k * step, index[0].start + (k + 1) * step),)
            out[rows + index[1:]] = pieces[r].reshape((step, *local[1:]))
            seen[rows + index[1:]] = True
    return out, seen


def _cut(value, item, rank):
    """``rank``'s array of a whole value under ``item`` (None: the whole value)."""
    if item is None:
        return value
    piece = local_slice(value, item.layout, rank)
    group = _opt_ranks(item, rank)
    if len(group) > 1:
        part = piece.size // len(group)
        k = group.index(rank)
        piece = piece.reshape(-1)[k * part:(k + 1) * part]
    return np.ascontiguousarray(piece)


def _transform(files: dict, src, dst, dst_ranks):
    """``{dst rank: {name: array}}`` from ``{src rank: checkpoint path}``."""
    _, src_layouts = read_layouts(src)
    _, dst_layouts = read_layouts(dst)
    loaded = {r: load_checkpoint(path) for r, path in sorted(files.items())}
    names = list(next(iter(loaded.values())))
    out = {r: {} for r in dst_ranks}
    for name in names:
        pieces = {r: ck[name] for r, ck in loaded.items() if name in ck}
        if not hasattr(pieces[min(pieces)], "asnumpy"):  # a string entry
            for r in dst_ranks:
                out[r][name] = pieces[min(pieces)]
            continue
        src_item = _item_for(name, src_layouts, None)
        if src_item is not None and src_item.stage_ranks is not None:
            # a pipeline stage's Parameter: only its stage's ranks hold it (as local ranks)
            pieces = {k: pieces[w] for k, w in enumerate(src_item.ranks) if w in pieces}
            if not pieces:
                raise ValueError(f"Parameter {name!r}: no checkpoint of its stage's ranks "
                                 f"{src_item.ranks} is given")
        whole, seen = _whole(name, {r: v.asnumpy() for r, v in pieces.items()}, src_item)
        item = _item_for(name, dst_layouts, whole.shape)
        for r in dst_ranks:
            local = r
            if item is not None and item.stage_ranks is not None:
                if r not in item.stage_ranks:
                    continue
                local = item.stage_ranks.index(r)
            if not _cut(seen, item, local).all():
                raise ValueError(f"Parameter {name!r}: the checkpoints given (ranks "
                                 f"{sorted(pieces)}) do not cover destination rank {r}'s "
                                 f"slice (source layout {src_item.layout})")
            out[r][name] = _cut(whole, item, local)
    return out


def _save(values: dict, path):
    save_checkpoint([{"name": k, "data": Tensor(v) if isinstance(v, np.ndarray) else v}
                     for k, v in values.items()], path)


def transform_checkpoint_by_rank(rank_id, checkpoint_files_map, save_checkpoint_file_name,
                                 src_strategy_file=None, dst_strategy_file=None):
    """Write destination rank ``rank_id``'s checkpoint from the source ranks' files
    (``{src rank: path}``, at least those ``rank_list_for_transform`` names)."""
    if not isinstance(save_checkpoint_file_name, str):
        raise TypeError("transform_checkpoint_by_rank: save_checkpoint_file_name must be a str")
    if not save_checkpoint_file_name.endswith(".ckpt"):
        raise ValueError(f"transform_checkpoint_by_rank: save_checkpoint_file_name "
                         f"{save_checkpoint_file_name} should end with .ckpt")
    if not isinstance(rank_id, int) or rank_id < 0:
        raise ValueError(f"transform_checkpoint_by_rank: rank_id must be an int >= 0, got "
                         f"{rank_id!r}")
    if not isinstance(checkpoint_files_map, dict) or not checkpoint_files_map:
        raise ValueError("transform_checkpoint_by_rank: checkpoint_files_map must be a "
                         "non-empty dict of source rank -> checkpoint file")
    for path in checkpoint_files_map.values():
        if not os.path.isfile(path):
            raise ValueError(f"transform_checkpoint_by_rank: no checkpoint file {path}")
    values = _transform(checkpoint_files_map, src_strategy_file, dst_strategy_file, [rank_id])
    _save(values[rank_id], save_checkpoint_file_name)


def _rank_files(directory) -> dict:
    if not os.path.isdir(directory):
        raise NotADirectoryError(f"transform_checkpoints: src_checkpoints_dir {directory} is "
                                 "not a directory")
    out = {}
    for entry in os.listdir(directory):
        m = re.fullmatch(r"rank_(\d+)", entry)
        sub = os.path.join(directory, entry)
        if m and os.path.isdir(sub):
            ckpts = sorted(f for f in os.listdir(sub) if f.endswith(".ckpt"))
            if ckpts:  # as MindSpore: the last file in lexicographic order
                out[int(m.group(1))] = os.path.join(sub, ckpts[-1])
    if not out:
        raise ValueError(f"transform_checkpoints: no rank_*/ *.ckpt files in {directory}")
    return out


def transform_checkpoints(src_checkpoints_dir, dst_checkpoints_dir, ckpt_prefix,
                          src_strategy_file=None, dst_strategy_file=None, process_num=1,
                          output_format="ckpt"):
    """Re-cut every rank's checkpoint in ``src_checkpoints_dir/rank_k/`` for the destination
    strategy: ``dst_checkpoints_dir/rank_k/{ckpt_prefix}{k}.ckpt`` for each destination rank
    (``process_num`` is accepted for MindSpore's signature; this runs in one process)."""
    if not isinstance(ckpt_prefix, str):
        raise TypeError("transform_checkpoints: ckpt_prefix must be a str")
    if output_format != "ckpt":
        raise ValueError(f"transform_checkpoints: output_format {output_format!r}: only "
                         "'ckpt' is written")
    if not isinstance(process_num, int) or process_num < 1:
        raise ValueError(f"transform_checkpoints: process_num must be an int >= 1, got "
                         f"{process_num!r}")
    files = _rank_files(src_checkpoints_dir)
    n_src, _ = read_layouts(src_strategy_file)
    missing = sorted(set(range(n_src)) - set(files))
    if missing:
        raise ValueError(f"transform_checkpoints: ranks {missing} have no checkpoint in "
                         f"{src_checkpoints_dir} ({n_src} in the source strategy)")
    n_dst, _ = read_layouts(dst_strategy_file)
    values = _transform(files, src_strategy_file, dst_strategy_file, range(n_dst))
    for r, vals in values.items():
        folder = os.path.join(dst_checkpoints_dir, f"rank_{r}")
        os.makedirs(folder, exist_ok=True)
        _save(vals, os.path.join(folder, f"{ckpt_prefix}{r}.ckpt"))


def rank_list_for_transform(rank_id, src_strategy_file=None, dst_strategy_file=None) -> list:
    """The source ranks whose checkpoints destination rank ``rank_id``'s needs: per
    Parameter, for each source slice meeting its slice the lowest rank holding it. With
    optimizer parallel only the parts that meet count where a part is a split of the first
    dimension (as MindSpore's), else all ranks of the slice's parts."""
    n_src, src = read_layouts(src_strategy_file)
    n_dst, dst = read_layouts(dst_strategy_file)
    if not isinstance(rank_id, int) or not 0 <= rank_id < n_dst:
        raise ValueError(f"rank_list_for_transform: rank_id {rank_id!r} is not a rank of the "
                         f"destination's {n_dst}")
    needed = set()
    for name, item in src.items():
        if dst and name not in dst:
            continue
        target, local = dst.get(name), rank_id
        if target is not None and target.stage_ranks is not None:
            if rank_id not in target.stage_ranks:
                continue  # another pipeline stage's Parameter
            local = target.stage_ranks.index(rank_id)
        # without the whole shape: one every layout of either side cuts evenly
        shape = item.param_shape or (n_src * n_dst,) * len(item.layout.tensor_map)
        want = _region(target, shape, local, part=True)
        chosen = {}
        for r in range(item.device_num):
            got = _region(item, shape, r, part=True)
            if all(a < d and c < b for (a, b), (c, d) in zip(want, got)):
                # a part split along the first dimension is r's alone; else every part
                alone = got != _region(item, shape, r)
                chosen.setdefault(got, [item.ranks[q] for q in
                                        ([r] if alone else _opt_ranks(item, r))])
        for ranks in chosen.values():
            needed.update(ranks)
    return sorted(needed) or [0]


def _region(item, shape, rank, part=False):
    """``rank``'s slice of ``shape`` under ``item`` as ((start, stop) per dimension); with
    ``part``, only its optimizer-parallel part where that is a split of the first
    dimension."""
    if item is None:
        return tuple((0, n) for n in shape)
    local = item.layout.slice_shape(shape)
    out = [(b * n, (b + 1) * n) for b, n in zip(item.layout.block(rank), local)]
    group = _opt_ranks(item, rank) if part else [rank]
    if len(group) > 1 and local and local[0] % len(group) == 0:
        step = local[0] // len(group)
        start = out[0][0] + group.index(rank) * step
        out[0] = (start, start + step)
    return tuple(out)


def load_distributed_checkpoint(network, checkpoint_filenames=None, predict_strategy=None,
                                train_strategy_filename=None, strict_load=False, dec_key=None,
                                dec_mode="AES-GCM", format="ckpt",  # noqa: A002
                                unified_safetensors_dir=None, dst_safetensors_dir=None,
                                rank_id=None, output_format="safetensors", name_map=None,
                                max_process_num=64, return_param_dict=False):
    """Load the per-rank checkpoints of a sharded training run (``checkpoint_filenames[r]``
    is rank ``r``'s; ``train_strategy_filename`` its strategy) into ``network``: whole
    values, or with ``predict_strategy`` (a strategy file or ``build_searched_strategy``'s
    dict) rank ``rank_id``'s slices (default: this process's rank). With
    ``return_param_dict`` the Parameters are returned instead of loaded."""
    if format != "ckpt" or unified_safetensors_dir or dst_safetensors_dir or dec_key:
        raise ValueError("load_distributed_checkpoint: only unencrypted ckpt files given as "
                         "checkpoint_filenames are read")
    if not isinstance(checkpoint_filenames, (list, tuple)) or not checkpoint_filenames:
        raise TypeError("load_distributed_checkpoint: checkpoint_filenames must be a list of "
                        "the ranks' checkpoint files, in rank order")
    n, _ = read_layouts(train_strategy_filename)
    if len(checkpoint_filenames) != n:
        raise ValueError(f"load_distributed_checkpoint: {len(checkpoint_filenames)} files for "
                         f"a strategy of {n} ranks")
    if rank_id is None:
        from ms_parallel.management import get_rank

        rank_id = get_rank() if predict_strategy is not None else 0
    files = dict(enumerate(checkpoint_filenames))
    values = _transform(files, train_strategy_filename, predict_strategy, [rank_id])[rank_id]
    if name_map:
        values = {name_map.get(k, k): v for k, v in values.items()}
    params = {k: Parameter(Tensor(v) if isinstance(v, np.ndarray) else v, name=k)
              for k, v in values.items()}
    if return_param_dict:
        return params
    _set_slices(network, params)
    load_param_into_net(network, params, strict_load=strict_load)
    return None


def _set_slices(network, params):
    """Network Parameters whose loaded value is a slice of them take its shape first."""
    for p in network.get_parameters():
        new = params.get(p.name)
        if new is not None and tuple(new.shape) != tuple(p.shape):
            p.set_data(Tensor(np.zeros(new.shape, p.asnumpy().dtype)), slice_shape=True)


def get_ckpt_path_with_strategy(cur_ckpt_path, cur_strategy_path):
    """This rank's checkpoint path if it exists, else the same path of a rank holding the
    same slices of every Parameter under the strategy (a data-parallel replica), or None."""
    from ms_parallel.management import get_rank

    cur = get_rank()
    if f"rank_{cur}" in cur_ckpt_path and os.path.isfile(cur_ckpt_path):
        return cur_ckpt_path
    n, layouts = read_layouts(cur_strategy_path)
    same = [r for r in range(n) if r != cur and all(
        item.layout.block(r) == item.layout.block(cur) and item.opt_weight_shard_size <= 1
        for item in layouts.values())]
    for r in same:
        path = re.sub(r"rank_\d+", f"rank_{r}", cur_ckpt_path)
        if os.path.isfile(path):
            return path
    return None
