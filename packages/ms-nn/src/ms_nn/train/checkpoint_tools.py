"""Checkpoint utilities of ``mindspore.train``: ``ckpt_to_safetensors`` /
``safetensors_to_ckpt`` (convert a file or a directory tree, optionally renaming
parameters), ``merge_sliced_parameter`` (join the slices of a parameter) and
``load_checkpoint_async`` (read a checkpoint in a worker thread; ``.result()`` waits)."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_tensor import Parameter, Tensor

__all__ = ["ckpt_to_safetensors", "safetensors_to_ckpt", "merge_sliced_parameter",
           "load_checkpoint_async"]


def _convert_one(src, dst, name_map, src_format, dst_format):
    params = load_checkpoint(src, format=src_format)
    if name_map:
        params = {name_map.get(k, k): v for k, v in params.items()}
    save_checkpoint(params, dst, format=dst_format)


def _convert(who, file_path, save_path, name_map, file_name_regex, src_suffix, dst_suffix):
    if not (os.path.isdir(file_path) or os.path.isfile(file_path)):
        raise ValueError(f"{who}: {file_path!r} is neither a file nor a directory")
    if save_path and os.path.splitext(save_path)[1]:
        raise ValueError(f"{who}: save_path must be a directory, got {save_path!r}")
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"{who}: name_map must be a dict, got {type(name_map).__name__}")
    formats = {".ckpt": "ckpt", ".safetensors": "safetensors"}
    if os.path.isfile(file_path):
        if not file_path.endswith(src_suffix):
            raise ValueError(f"{who}: the input file must be a {src_suffix} file, got "
                             f"{file_path!r}")
        if file_name_regex is not None and not re.findall(file_name_regex, file_path):
            raise ValueError(f"{who}: {file_path!r} does not match {file_name_regex!r}")
        out_dir = save_path or os.path.dirname(file_path) or "."
        os.makedirs(out_dir, exist_ok=True)
        name = os.path.basename(file_path)[:-len(src_suffix)] + dst_suffix
        _convert_one(file_path, os.path.join(out_dir, name), name_map, formats[src_suffix],
                     formats[dst_suffix])
        return
    for root, _, files in os.walk(file_path):
        for file in sorted(files):
            if not file.endswith(src_suffix):
                continue
            if file_name_regex is not None and not re.findall(file_name_regex, file):
                continue
            out_dir = os.path.join(save_path, os.path.relpath(root, file_path)) if save_path \
                else root
            os.makedirs(out_dir, exist_ok=True)
            _convert_one(os.path.join(root, file),
                         os.path.join(out_dir, file[:-len(src_suffix)] + dst_suffix), name_map,
                         formats[src_suffix], formats[dst_suffix])


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Write a ``.safetensors`` file beside (or under ``save_path``) each ``.ckpt`` file of
    ``file_path`` (a file or a directory tree), renaming parameters by ``name_map``. The
    files are converted one after the other (``processes_num`` is accepted for MindSpore's
    signature)."""
    _convert("ckpt_to_safetensors", file_path, save_path, name_map, file_name_regex, ".ckpt",
             ".safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """The reverse of ``ckpt_to_safetensors``: a ``.ckpt`` file per ``.safetensors`` file."""
    _convert("safetensors_to_ckpt", file_path, save_path, name_map, file_name_regex,
             ".safetensors", ".ckpt")


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """One Parameter from slices of it taken along axis 0 (same name, same shape but the
    first axis).

    >>> a = Parameter(Tensor([[1.0, 2.0]]), name="w"); b = Parameter(Tensor([[3.0, 4.0]]), name="w")
    >>> merge_sliced_parameter([a, b]).asnumpy().tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if not isinstance(sliced_parameters, list) or not sliced_parameters:
        raise ValueError("merge_sliced_parameter: sliced_parameters must be a non-empty list of "
                         "Parameters")
    if strategy:
        raise ValueError("merge_sliced_parameter: merging by a parallel strategy is not "
                         "supported; merge slices taken along axis 0 (strategy=None)")
    first = sliced_parameters[0]
    for i, p in enumerate(sliced_parameters):
        if not isinstance(p, Parameter):
            raise TypeError(f"merge_sliced_parameter: element {i} is a {type(p).__name__}, not "
                            f"a Parameter")
        if p.name != first.name or p.shape[1:] != first.shape[1:]:
            raise ValueError(f"merge_sliced_parameter: slice {i} ({p.name}, shape {p.shape}) "
                             f"does not match {first.name} with shape (*, "
                             f"{', '.join(map(str, first.shape[1:]))})")
    merged = np.concatenate([p.asnumpy() for p in sliced_parameters])
    return Parameter(Tensor(merged), first.name, first.requires_grad)


class ParamDictFuture:
    """The pending result of ``load_checkpoint_async``; ``result()`` waits for the dict."""

    def __init__(self, executor, future):
        self.executor, self.future = executor, future

    def result(self):
        try:
            return self.future.result()
        finally:
            self.executor.shutdown()


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                          dec_key=None, dec_mode="AES-GCM", specify_prefix=None,
                          choice_func=None):
    """``load_checkpoint`` in a worker thread, so reading overlaps other work."""
    fmt = "safetensors" if str(ckpt_file_name).endswith(".safetensors") else "ckpt"
    executor = ThreadPoolExecutor(max_workers=1)
    future = executor.submit(load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix,
                             dec_key, dec_mode, specify_prefix, choice_func, format=fmt)
    return ParamDictFuture(executor, future)
