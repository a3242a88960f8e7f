"""Checkpoints: ``save_checkpoint`` / ``load_checkpoint`` / ``load_param_into_net``.

Files are safetensors (a JSON header and raw little-endian arrays; loading never unpickles
anything), although they keep MindSpore's ``.ckpt`` name so scripts and ``ModelCheckpoint``'s
file names stay the same. They are NOT readable by MindSpore's own ``load_checkpoint`` (which
expects protobuf); any safetensors reader opens them.

A save writes a temporary file in the target directory, flushes and fsyncs it, then renames
it over the target (``os.replace`` is atomic on POSIX and Windows), so a crash mid-save leaves
the previous checkpoint intact. The header's metadata keeps the parameters' order, MindSpore
dtypes numpy cannot name (bfloat16) and string entries of ``append_dict``.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import threading

import numpy as np
import safetensors
import safetensors.numpy

from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

_FORMAT = "microspore-checkpoint-1"
_ST_DTYPES = {
    "BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "U16": np.uint16, "I16": np.int16,
    "U32": np.uint32, "I32": np.int32, "U64": np.uint64, "I64": np.int64, "F16": np.float16,
    "BF16": mstype.to_numpy(mstype.bfloat16),
    "F32": np.float32, "F64": np.float64,
}
_pending_saves: list[threading.Thread] = []


def _collect(save_obj, choice_func) -> dict:
    """Name -> numpy array (or str) from a Cell, a list of dicts, or a dict."""
    entries: dict = {}

    def add(name, value):
        if not isinstance(name, str):
            raise TypeError(f"save_checkpoint: parameter names must be str, got {name!r}")
        if choice_func is not None and not choice_func(name):
            return
        if name in entries:
            raise ValueError(f"save_checkpoint: two different parameters are both named "
                             f"{name!r}; give them unique names")
        entries[name] = value

    if hasattr(save_obj, "parameters_and_names"):
        seen = set()
        for path, param in save_obj.parameters_and_names():
            if id(param) in seen:
                continue
            seen.add(id(param))
            # MindSpore keys by the Parameter's own name, which survives wrapping the
            # network in WithLossCell / TrainOneStepCell.
            add(getattr(param, "name", None) or path, param)
    elif isinstance(save_obj, list):
        for item in save_obj:
            if not isinstance(item, dict) or "name" not in item or "data" not in item:
                raise TypeError("save_checkpoint: a list save_obj must hold dicts with 'name' "
                                f"and 'data' keys, got {item!r:.80}")
            add(item["name"], item["data"])
    elif isinstance(save_obj, dict):
        for name, value in save_obj.items():
            add(name, value)
    else:
        raise TypeError(f"save_checkpoint: save_obj must be a Cell, a list of "
                        f"{{'name', 'data'}} dicts or a dict, got {type(save_obj).__name__}")
    return entries


def _as_array(name: str, value):
    """The array (or str) stored for one entry; a snapshot, so later training cannot change it."""
    if isinstance(value, str):
        return value
    if isinstance(value, Tensor):
        return np.array(value.asnumpy(), copy=True)
    if isinstance(value, (bool, np.bool_)):
        return np.array(value, np.bool_)
    if isinstance(value, (int, np.integer)):
        return np.array(value, np.int64)
    if isinstance(value, (float, np.floating)):
        return np.array(value, np.float32)
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True)
    raise TypeError(f"save_checkpoint: {name!r} has a value of type {type(value).__name__}; "
                    f"expected a Parameter, Tensor, numpy array, int, float, bool or str")


def _serialize(entries: dict) -> bytes:
    arrays, strings, order = {}, {}, []
    for name, value in entries.items():
        order.append(name)
        if isinstance(value, str):
            strings[name] = value
        else:
            # Not np.ascontiguousarray: it turns 0-d arrays into shape (1,).
            arrays[name] = value if value.flags.c_contiguous else value.copy(order="C")
    metadata = {"format": _FORMAT, "order": json.dumps(order), "strings": json.dumps(strings)}
    return safetensors.numpy.save(arrays, metadata=metadata)


def _write_atomic(path: str, data: bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    crc_check=False, format="ckpt", **kwargs):  # noqa: A002 (MindSpore's name)
    """Save a network's parameters (or a list of ``{"name", "data"}``) to a checkpoint file.

    Args:
        save_obj: a Cell (every Parameter, keyed by its name; for a ``TrainOneStepCell`` that
            includes the optimizer's accumulators, so training can resume exactly), a list of
            ``{"name": str, "data": Tensor}`` dicts, or a dict name -> value.
        ckpt_file_name: path; ``.ckpt`` is appended when it has no ``.ckpt`` / ``.safetensors``
            suffix, as MindSpore does.
        integrated_save: accepted for MindSpore compatibility (one process holds every slice).
        async_save: write on a background thread; the values are copied before returning.
        append_dict: extra entries (int, float, bool, str, Tensor) such as ``{"epoch_num": 3}``.
        choice_func: keep only names for which ``choice_func(name)`` is true.
        format: ``"ckpt"`` or ``"safetensors"``; both write safetensors bytes.
    Raises:
        ValueError: for encryption (not supported) or an unknown ``format``.
    """
    if enc_key is not None:
        raise ValueError("save_checkpoint: encrypted checkpoints (enc_key) are not supported")
    if format not in ("ckpt", "safetensors"):
        raise ValueError(f"save_checkpoint: format must be 'ckpt' or 'safetensors', got "
                         f"{format!r}")
    path = os.fspath(ckpt_file_name)
    if not path.endswith((".ckpt", ".safetensors")):
        path += ".ckpt" if format == "ckpt" else ".safetensors"
    entries = _collect(save_obj, choice_func)
    for name, value in (append_dict or {}).items():
        if name in entries:
            raise ValueError(f"save_checkpoint: append_dict key {name!r} is also a parameter "
                             f"name")
        entries[name] = value
    snapshot = {name: _as_array(name, value) for name, value in entries.items()}
    if async_save:
        _wait_async_saves()
        thread = _AsyncSave(path, snapshot)
        _pending_saves.append(thread)
        thread.start()
    else:
        _write_atomic(path, _serialize(snapshot))


class _AsyncSave(threading.Thread):
    """A background write whose error is raised by the next ``_wait_async_saves``."""

    def __init__(self, path: str, snapshot: dict):
        super().__init__(name="ms_nn_async_save")
        self.path, self.snapshot, self.error = path, snapshot, None

    def run(self):
        try:
            _write_atomic(self.path, _serialize(self.snapshot))
        except BaseException as exc:  # re-raised in the training thread
            self.error = exc


def _wait_async_saves() -> None:
    """Block until every ``async_save`` started so far has finished; raise its error."""
    while _pending_saves:
        thread = _pending_saves.pop()
        thread.join()
        if thread.error is not None:
            raise RuntimeError(f"save_checkpoint: the asynchronous save of {thread.path} "
                               f"failed: {thread.error}") from thread.error


def _read(path: str) -> tuple[dict, dict]:
    """(name -> numpy array in saved order, metadata); errors name the file."""
    _wait_async_saves()
    if not os.path.isfile(path):
        raise ValueError(f"load_checkpoint: the checkpoint file {path} does not exist")
    with open(path, "rb") as f:
        blob = f.read()
    try:
        tensors = safetensors.deserialize(blob)
        (header_len,) = struct.unpack("<Q", blob[:8])
        metadata = json.loads(blob[8:8 + header_len]).get("__metadata__") or {}
    except (safetensors.SafetensorError, struct.error, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"Failed to read the checkpoint file {path}: it is corrupted, "
                         f"truncated or not a safetensors checkpoint ({exc})") from None
    arrays = {}
    for name, info in tensors:
        np_dtype = _ST_DTYPES.get(info["dtype"])
        if np_dtype is None:
            raise ValueError(f"Failed to read the checkpoint file {path}: tensor {name!r} has "
                             f"unsupported dtype {info['dtype']}")
        arrays[name] = np.frombuffer(info["data"], np_dtype).reshape(info["shape"]).copy()
    return arrays, metadata


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    crc_check=False, remove_redundancy=False, format="ckpt"):  # noqa: A002
    """Read a checkpoint into a dict name -> Parameter (strings stay ``str``), in saved order.

    Args:
        ckpt_file_name: path of a file written by ``save_checkpoint``.
        net: when given, the parameters are also loaded into it (``load_param_into_net``).
        strict_load: passed on to ``load_param_into_net``.
        filter_prefix: drop names starting with this prefix (str or tuple of str).
        specify_prefix: keep only names starting with this prefix (str or tuple of str).
        choice_func: keep only names for which ``choice_func(name)`` is true.
    Raises:
        ValueError: if the file is missing, corrupt, truncated or not a checkpoint; the
            message names the file.
    """
    if dec_key is not None:
        raise ValueError("load_checkpoint: encrypted checkpoints (dec_key) are not supported")
    path = os.fspath(ckpt_file_name)
    arrays, metadata = _read(path)
    try:
        order = json.loads(metadata.get("order", "[]"))
        strings = json.loads(metadata.get("strings", "{}"))
    except ValueError:
        raise ValueError(f"Failed to read the checkpoint file {path}: its metadata is not "
                         f"valid JSON") from None
    names = [n for n in order if n in arrays or n in strings]
    names += [n for n in arrays if n not in set(names)]
    filter_prefix = (filter_prefix,) if isinstance(filter_prefix, str) else filter_prefix
    specify_prefix = (specify_prefix,) if isinstance(specify_prefix, str) else specify_prefix
    out = {}
    for name in names:
        if filter_prefix and name.startswith(tuple(filter_prefix)):
            continue
        if specify_prefix and not name.startswith(tuple(specify_prefix)):
            continue
        if choice_func is not None and not choice_func(name):
            continue
        out[name] = strings[name] if name in strings else Parameter(arrays[name], name=name)
    if net is not None:
        load_param_into_net(net, out, strict_load=strict_load)
    return out


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy values from ``parameter_dict`` into the network's Parameters with the same names.

    Returns ``(param_not_load, ckpt_not_load)`` as MindSpore 2.x does: the network's
    parameter names that got no value, and the dict's names that went into no parameter.

    Args:
        net: a Cell.
        parameter_dict: name -> Parameter/Tensor (as ``load_checkpoint`` returns).
        strict_load: when True, a network parameter missing from the dict is an error whose
            message lists the missing and the unexpected names. (MindSpore's strict mode only
            turns off its suffix matching; microspore matches exact names in both modes and
            never raises just for extra entries, so loading a training checkpoint with
            optimizer state into a bare network still works.)
    Raises:
        ValueError: shape mismatch between a parameter and its checkpoint value, or missing
            names in strict mode.
        TypeError: if ``parameter_dict`` is not a dict.
    """
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, got "
                        f"{type(parameter_dict).__name__}")
    params = [p for _, p in _unique(net)]
    names = [p.name for p in params]
    missing = [n for n in names if n not in parameter_dict]
    used = set(names) - set(missing)
    unexpected = [n for n in parameter_dict if n not in used]
    if strict_load and missing:
        raise ValueError(f"load_param_into_net: strict load failed: {len(missing)} network "
                         f"parameters are not in the checkpoint: {missing}; checkpoint entries "
                         f"the network does not have: {unexpected}")
    for param in params:
        if param.name not in parameter_dict:
            continue
        value = parameter_dict[param.name]
        if isinstance(value, str) or not isinstance(value, (Tensor, np.ndarray)):
            raise TypeError(f"load_param_into_net: checkpoint entry {param.name!r} is a "
                            f"{type(value).__name__}, not a Tensor")
        array = value.asnumpy() if isinstance(value, Tensor) else value
        if tuple(array.shape) != tuple(param.shape):
            raise ValueError(f"load_param_into_net: parameter {param.name!r} has shape "
                             f"{tuple(param.shape)} in the network but {tuple(array.shape)} in "
                             f"the checkpoint")
        param.set_data(Tensor(array))
    return missing, unexpected


def _unique(net):
    seen = set()
    for path, param in net.parameters_and_names():
        if id(param) in seen:
            continue
        seen.add(id(param))
        if not getattr(param, "name", None):
            param.name = path
        yield path, param
