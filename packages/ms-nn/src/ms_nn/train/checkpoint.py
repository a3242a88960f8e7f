"""Checkpoints: ``save_checkpoint`` / ``load_checkpoint`` / ``load_param_into_net``.

Files are safetensors (a JSON header and raw little-endian arrays; loading never unpickles
anything), although they keep MindSpore's ``.ckpt`` name so scripts and ``ModelCheckpoint``'s
file names stay the same. They are NOT readable by MindSpore's own ``load_checkpoint`` (which
expects protobuf); any safetensors reader opens them.

Guarantees (``_safetensors_file`` writes and reads the file itself):

- A save writes a temporary file, fsyncs it and renames it over the target, so a crash
  mid-save leaves the previous checkpoint intact; the next save to that directory deletes
  the killed save's temporary file. The new file's mode follows the umask, as ``open()``'s.
- What is saved can be loaded: every dtype microspore has round-trips, and anything else is
  refused before a file is touched.
- A failed ``async_save`` raises at the next save or load and at ``wait_async_saves()``, and
  is reported at interpreter exit.
- Loading reads one tensor at a time (memory: the result plus one tensor), and
  ``load_param_into_net`` checks every parameter before it changes any.

The header's metadata keeps the parameters' order, complex128 entries (safetensors has no
such dtype) and the string entries of ``append_dict``.
"""

from __future__ import annotations

import atexit
import json
import os
import threading

import numpy as np

from ms_nn.train import _safetensors_file as _file
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "wait_async_saves",
           "async_ckpt_thread_status"]

_FORMAT = "microspore-checkpoint-1"
_pending_saves: list[threading.Thread] = []
_pending_lock = threading.Lock()


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
    elif isinstance(save_obj, (list, tuple)):
        for item in save_obj:
            if isinstance(item, Parameter):  # a list of Parameters, keyed by their names
                add(item.name, item)
            elif isinstance(item, dict) and "name" in item and "data" in item:
                add(item["name"], item["data"])
            else:
                raise TypeError("save_checkpoint: a list save_obj must hold Parameters or "
                                f"dicts with 'name' and 'data' keys, got {item!r:.80}")
    elif isinstance(save_obj, dict):
        for name, value in save_obj.items():
            add(name, value)
    else:
        raise TypeError(f"save_checkpoint: save_obj must be a Cell, a list of Parameters or "
                        f"of {{'name', 'data'}} dicts, or a dict, got {type(save_obj).__name__}")
    return entries


def _as_array(name: str, value, copy: bool):
    """The array (or str) stored for one entry (with ``copy``, a snapshot that training cannot
    change later); TypeError for what a checkpoint cannot hold."""
    if isinstance(value, str):
        return value
    if isinstance(value, Tensor):
        array = np.array(value.asnumpy(), copy=copy)
    elif isinstance(value, (bool, np.bool_)):
        array = np.array(value, np.bool_)
    elif isinstance(value, (int, np.integer)):
        array = np.array(value, np.int64)
    elif isinstance(value, (float, np.floating)):
        array = np.array(value, np.float32)
    elif isinstance(value, np.ndarray):
        array = np.array(value, copy=copy)
    else:
        raise TypeError(f"save_checkpoint: {name!r} has a value of type {type(value).__name__}; "
                        f"expected a Parameter, Tensor, numpy array, int, float, bool or str")
    _file.storable(name, array)
    return array


def _split(snapshot: dict) -> tuple[dict, dict]:
    """(name -> array, the file's metadata); ValueError for a name the header cannot hold."""
    arrays, strings = {}, {}
    for name, value in snapshot.items():
        if name == "__metadata__":
            raise ValueError("save_checkpoint: the name '__metadata__' is reserved by the file "
                             "format; rename that entry")
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"save_checkpoint: the name {name!r} cannot be written as UTF-8 "
                             f"text") from None
        (strings if isinstance(value, str) else arrays)[name] = value
    metadata = {"format": _FORMAT, "order": json.dumps(list(snapshot), ensure_ascii=False),
                "strings": json.dumps(strings, ensure_ascii=False)}
    return arrays, metadata


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
            A failure raises at the next save or load, or at ``wait_async_saves()``.
        append_dict: extra entries (int, float, bool, str, Tensor) such as ``{"epoch_num": 3}``.
        choice_func: keep only names for which ``choice_func(name)`` is true.
        format: ``"ckpt"`` or ``"safetensors"``; both write safetensors bytes.
    Raises:
        ValueError: for encryption (not supported), an unknown ``format`` or a missing directory.
        TypeError: for a value a checkpoint cannot hold (checked before any file is touched).
        RuntimeError: if an earlier ``async_save`` failed.
    """
    if enc_key is not None:
        raise ValueError("save_checkpoint: encrypted checkpoints (enc_key) are not supported")
    if format not in ("ckpt", "safetensors"):
        raise ValueError(f"save_checkpoint: format must be 'ckpt' or 'safetensors', got "
                         f"{format!r}")
    wait_async_saves()
    path = os.fspath(ckpt_file_name)
    if not path.endswith((".ckpt", ".safetensors")):
        path += ".ckpt" if format == "ckpt" else ".safetensors"
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"save_checkpoint: cannot write {path}: the directory {directory} "
                         f"does not exist")
    entries = _collect(save_obj, choice_func)
    for name, value in (append_dict or {}).items():
        if name in entries:
            raise ValueError(f"save_checkpoint: append_dict key {name!r} is also a parameter "
                             f"name")
        entries[name] = value
    snapshot = {name: _as_array(name, value, async_save) for name, value in entries.items()}
    arrays, metadata = _split(snapshot)
    if async_save:
        thread = _AsyncSave(path, arrays, metadata)
        with _pending_lock:
            _pending_saves.append(thread)
        thread.start()
    else:
        _file.write(path, arrays, metadata)


class _AsyncSave(threading.Thread):
    """A background write whose error the next ``wait_async_saves`` raises."""

    def __init__(self, path: str, arrays: dict, metadata: dict):
        # Not a daemon: the interpreter waits for the write before it exits.
        super().__init__(name="ms_nn_async_save")
        self.path, self.arrays, self.metadata, self.error = path, arrays, metadata, None

    def run(self):
        try:
            _file.write(self.path, self.arrays, self.metadata)
        except BaseException as exc:  # re-raised in the training thread
            self.error = exc
        finally:
            self.arrays = None


def wait_async_saves() -> None:
    """Block until every ``async_save`` started so far has finished; raise the first failure.

    microspore's addition (MindSpore only offers ``async_ckpt_thread_status``): call it before
    relying on the file, or at the end of a script so that a failed save changes its exit
    status. ``ModelCheckpoint`` calls it when training ends.

    Raises:
        RuntimeError: naming the file, chained to the save's own error.
    """
    with _pending_lock:
        threads = list(_pending_saves)
        _pending_saves.clear()
    failed = None
    for thread in threads:
        thread.join()
        if thread.error is not None and failed is None:
            failed = thread
    if failed is not None:
        raise RuntimeError(f"save_checkpoint: the asynchronous save of {failed.path} failed: "
                           f"{failed.error}") from failed.error


def async_ckpt_thread_status() -> bool:
    """True while an ``async_save`` is still writing (MindSpore's name)."""
    with _pending_lock:
        return any(thread.is_alive() for thread in _pending_saves)


@atexit.register
def _report_at_exit() -> None:
    # An atexit callback cannot change the exit status; Python prints what it raises.
    wait_async_saves()


def _read(path: str, keep=None) -> tuple[dict, dict]:
    """(name -> numpy array in file order, metadata); errors name the file."""
    wait_async_saves()
    if not os.path.exists(path):
        raise ValueError(f"load_checkpoint: the checkpoint file {path} does not exist")
    return _file.read(path, keep)


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    crc_check=False, remove_redundancy=False, format="ckpt"):  # noqa: A002
    """Read a checkpoint into a dict name -> Parameter (strings stay ``str``), in saved order.

    Tensors are read one at a time into their Parameters, and filtered-out tensors are
    skipped, so loading takes about the result's memory plus one tensor.

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
    filter_prefix = (filter_prefix,) if isinstance(filter_prefix, str) else filter_prefix
    specify_prefix = (specify_prefix,) if isinstance(specify_prefix, str) else specify_prefix

    def keep(name):
        if filter_prefix and name.startswith(tuple(filter_prefix)):
            return False
        if specify_prefix and not name.startswith(tuple(specify_prefix)):
            return False
        return choice_func is None or bool(choice_func(name))

    arrays, metadata = _read(path, keep)
    order = _file.json_metadata(path, metadata, "order", list)
    strings = _file.json_metadata(path, metadata, "strings", dict)
    names = [n for n in order if n in arrays or n in strings]
    listed = set(names)
    names += [n for n in arrays if n not in listed]
    out = {}
    for name in names:
        if name in strings:
            if keep(name):
                out[name] = strings[name]
        elif name in arrays:
            # pop: each array is freed once its Parameter holds a copy
            out[name] = Parameter(arrays.pop(name), name=name)
    if net is not None:
        load_param_into_net(net, out, strict_load=strict_load)
    return out


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy values from ``parameter_dict`` into the network's Parameters with the same names.

    Every value is checked before any parameter changes, so a failed load leaves the network
    as it was. Returns ``(param_not_load, ckpt_not_load)`` as MindSpore 2.x does: the
    network's parameter names that got no value, and the dict's names that went into no
    parameter.

    Args:
        net: a Cell.
        parameter_dict: name -> Parameter/Tensor (as ``load_checkpoint`` returns).
        strict_load: when True, a network parameter missing from the dict is an error whose
            message lists the missing and the unexpected names, and integer widths must match.
            (MindSpore's strict mode only turns off its suffix matching; microspore matches
            exact names in both modes and never raises just for extra entries, so loading a
            training checkpoint with optimizer state into a bare network still works.)
    Raises:
        ValueError: listing every parameter whose checkpoint value has another shape, or a
            dtype that does not convert (float to float, and int to int unless
            ``strict_load``, convert as in MindSpore); or missing names in strict mode.
        TypeError: if ``parameter_dict`` is not a dict or an entry is not a Tensor.
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
    updates, problems = [], []
    for param in params:
        if param.name not in parameter_dict:
            continue
        value = parameter_dict[param.name]
        if isinstance(value, str) or not isinstance(value, (Tensor, np.ndarray)):
            raise TypeError(f"load_param_into_net: checkpoint entry {param.name!r} is a "
                            f"{type(value).__name__}, not a Tensor; no parameter was changed")
        array = value.asnumpy() if isinstance(value, Tensor) else value
        problem = _mismatch(param, array, strict_load)
        if not problem:
            try:  # converted now: a value the dtype cannot hold fails before any write
                updates.append((param, Tensor(array, param.dtype)))
            except ValueError as exc:
                problem = f"parameter {param.name!r}: {exc}"
        if problem:
            problems.append(problem)
    if problems:
        raise ValueError(f"load_param_into_net: {len(problems)} parameters do not match the "
                         f"checkpoint, so none was loaded:\n  " + "\n  ".join(problems))
    for param, value in updates:
        param.set_data(value)
    return missing, unexpected


_FLOATS = {np.dtype(t.np) for t in mstype.float_types}
_SIGNED = {np.dtype(t.np) for t in (mstype.int8, mstype.int16, mstype.int32, mstype.int64)}


def _mismatch(param, array: np.ndarray, strict_load: bool) -> str:
    """Why ``array`` cannot go into ``param`` ("" if it can), as MindSpore's type rule."""
    if tuple(array.shape) != tuple(param.shape):
        return (f"parameter {param.name!r} has shape {tuple(param.shape)} in the network but "
                f"{tuple(array.shape)} in the checkpoint")
    ours, theirs = param.dtype.np, array.dtype
    if ours == theirs or {ours, theirs} <= _FLOATS or (
            {ours, theirs} <= _SIGNED and not strict_load):
        return ""
    try:
        theirs = mstype.from_numpy(theirs)
    except (TypeError, ValueError, KeyError):
        pass
    return (f"parameter {param.name!r} has dtype {param.dtype} in the network but {theirs} in "
            f"the checkpoint")


def _unique(net):
    seen = set()
    for path, param in net.parameters_and_names():
        if id(param) in seen:
            continue
        seen.add(id(param))
        if not getattr(param, "name", None):
            param.name = path
        yield path, param
