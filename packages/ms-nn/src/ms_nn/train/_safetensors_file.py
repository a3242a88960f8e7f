"""The checkpoint file: safetensors, written atomically and read one tensor at a time.

safetensors is an 8-byte header length, a JSON header and the raw little-endian arrays, so
it is written and read here directly rather than through a bytes blob: the writer streams
each array into a temporary file, and the reader checks the whole header against the file
size before it allocates anything, then reads each tensor straight into its own array. A
lying header therefore cannot ask for more memory than the file holds, and loading needs
one copy of the data (the result), not three.

Temporary files are named ``.<target>.<pid>-<random>.ms-ckpt-tmp`` and held under an
exclusive ``flock`` while written; a later save to the same directory deletes those whose
writer is gone (a killed save), and nothing else.
"""

from __future__ import annotations

import json
import os
import re
import reprlib
import secrets
import struct
import threading

import numpy as np

from ms_tensor import dtype as mstype

try:
    import fcntl
except ImportError:  # Windows: no flock; only this process's own leftovers are cleaned
    fcntl = None

# The safetensors dtype tag of every dtype microspore has. complex128 has no tag: it is
# stored as F64 with a trailing axis of 2 and listed in the metadata (any reader sees the
# real and imaginary parts).
_TAGS = {np.dtype(t.np): tag for t, tag in (
    (mstype.bool_, "BOOL"), (mstype.uint8, "U8"), (mstype.int8, "I8"), (mstype.uint16, "U16"),
    (mstype.int16, "I16"), (mstype.uint32, "U32"), (mstype.int32, "I32"),
    (mstype.uint64, "U64"), (mstype.int64, "I64"), (mstype.float16, "F16"),
    (mstype.bfloat16, "BF16"), (mstype.float32, "F32"), (mstype.float64, "F64"),
    (mstype.complex64, "C64"))}
_DTYPES = {tag: dt for dt, tag in _TAGS.items()}
_C128 = np.dtype(np.complex128)
_MAX_HEADER = 100 * 1024 * 1024  # safetensors' own limit
_MAX_NDIM = 32
_TMP = re.compile(r"^\..*\.(\d+)-[0-9a-f]{8}\.ms-ckpt-tmp$")
_writing: set[str] = set()  # this process's temporary files being written now
_writing_lock = threading.Lock()


def storable(name: str, array: np.ndarray) -> None:
    """Raise TypeError unless ``array`` can be written and read back exactly."""
    if _native(array.dtype) not in _TAGS and _native(array.dtype) != _C128:
        supported = ", ".join(str(mstype.from_numpy(d)) for d in [*_TAGS, _C128])
        raise TypeError(f"save_checkpoint: {name!r} has dtype {array.dtype}, which a checkpoint "
                        f"cannot hold; supported: {supported}")


def _native(dtype: np.dtype) -> np.dtype:
    return dtype.newbyteorder("=")


def write(path: str, arrays: dict, metadata: dict) -> None:
    """Write ``arrays`` (name -> numpy array) atomically to ``path``.

    The header is built (and so every name and dtype checked) before any file is touched.
    """
    complex128 = [n for n, a in arrays.items() if _native(a.dtype) == _C128]
    if complex128:
        metadata = {**metadata, "complex128": json.dumps(complex128)}
    stored = {name: _stored(a) for name, a in arrays.items()}
    # Widest items first keeps every array aligned to its item size, as safetensors does.
    layout = sorted(stored, key=lambda n: -stored[n].dtype.itemsize)
    header, offset = {"__metadata__": metadata}, 0
    for name in layout:
        a = stored[name]
        header[name] = {"dtype": _TAGS[_native(a.dtype)], "shape": list(a.shape),
                        "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    directory = os.path.dirname(os.path.abspath(path))
    _clean_stale(directory)
    tmp = _create_tmp(path)
    try:
        with os.fdopen(tmp[1], "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for name in layout:
                f.write(stored[name].reshape(-1).view(np.uint8))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp[0], path)
    except BaseException:
        try:
            os.unlink(tmp[0])
        except OSError:
            pass
        raise
    finally:
        with _writing_lock:
            _writing.discard(tmp[0])
    _fsync_dir(directory)


def _stored(a: np.ndarray) -> np.ndarray:
    """The little-endian, C-contiguous array whose bytes go into the file."""
    a = np.ascontiguousarray(a, a.dtype.newbyteorder("<")).reshape(a.shape)  # keeps 0-d 0-d
    if _native(a.dtype) == _C128:
        a = a.reshape(-1).view(np.dtype("<f8")).reshape(a.shape + (2,))
    return a


def _create_tmp(path: str) -> tuple[str, int]:
    """A new temporary file beside ``path``, mode as ``open()`` would give, locked."""
    directory, base = os.path.split(os.path.abspath(path))
    try:  # replacing a file keeps its mode, as writing it in place would
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    tmp = os.path.join(directory, f".{base[:180]}.{os.getpid()}-{secrets.token_hex(4)}"
                                  f".ms-ckpt-tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    with _writing_lock:  # before it exists: another thread's clean-up must never take it
        _writing.add(tmp)
    try:
        fd = os.open(tmp, flags | getattr(os, "O_CLOEXEC", 0), 0o666)  # the umask applies
    except BaseException:
        with _writing_lock:
            _writing.discard(tmp)
        raise
    try:
        if mode is not None and hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        with _writing_lock:
            _writing.discard(tmp)
        raise
    return tmp, fd


def _clean_stale(directory: str) -> None:
    """Delete temporary files of killed saves in ``directory``; never fails a save."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    me = os.getpid()
    for name in names:
        m = _TMP.match(name)
        if m is None:
            continue
        tmp, pid = os.path.join(directory, name), int(m.group(1))
        with _writing_lock:
            if tmp in _writing:
                continue
        if pid != me and (fcntl is None or _alive(pid)):
            continue
        try:
            fd = os.open(tmp, os.O_RDONLY)
        except OSError:
            continue
        try:
            if fcntl is not None:  # a writer in another pid namespace still holds it
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(tmp)
        except OSError:
            pass
        finally:
            os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _fsync_dir(directory: str) -> None:
    """Make the rename itself durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


class _Bad(Exception):
    """A reason the file is not a readable checkpoint; ``read`` adds the file name."""


def read(path: str, keep=None) -> tuple[dict, dict]:
    """(name -> numpy array in file order, metadata) for the names ``keep`` accepts.

    Raises:
        ValueError: naming the file, for a missing, truncated, corrupt or foreign file.
    """
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            entries, metadata, start = _header(f, size)
            arrays = {}
            for name, dtype, shape, begin, _ in entries:
                if keep is not None and not keep(name):
                    continue
                f.seek(start + begin)
                arrays[name] = _read_array(f, dtype, shape, name)
    except _Bad as exc:
        raise ValueError(f"Failed to read the checkpoint file {path}: it is corrupted, "
                         f"truncated or not a safetensors checkpoint ({exc})") from None
    except IsADirectoryError:
        raise ValueError(f"Failed to read the checkpoint file {path}: it is a "
                         f"directory") from None
    for name in json_metadata(path, metadata, "complex128", list):
        a = arrays.get(name)
        if a is None:
            continue
        if a.dtype != np.float64 or a.ndim == 0 or a.shape[-1] != 2:
            raise ValueError(f"Failed to read the checkpoint file {path}: complex128 entry "
                             f"{_brief(name)} is stored as {a.dtype} {a.shape}, not float64 "
                             f"(..., 2)")
        arrays[name] = a.view(_C128).reshape(a.shape[:-1])
    return arrays, metadata


def _header(f, size: int):
    """Validated ([(name, dtype, shape, begin, end)] in file order, metadata, data start)."""
    head = f.read(8)
    if len(head) < 8:
        raise _Bad(f"{size} bytes, shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", head)
    if n > min(size - 8, _MAX_HEADER):
        raise _Bad(f"the header claims {n} bytes but the file has {size - 8} after the length")
    try:
        header = json.loads(f.read(n).decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _Bad(f"the header is not valid JSON: {str(exc)[:200]}") from None
    if not isinstance(header, dict):
        raise _Bad(f"the header is a JSON {type(header).__name__}, not an object")
    metadata = header.pop("__metadata__", None)
    metadata = {} if metadata is None else metadata  # safetensors allows null
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise _Bad("__metadata__ must map names to strings")
    entries = sorted((_entry(name, info) for name, info in header.items()),
                     key=lambda e: (e[3], e[4]))
    end = 0
    for name, _, _, begin, stop in entries:
        if begin != end:
            raise _Bad(f"tensor {_brief(name)} starts at byte {begin}, expected {end} "
                       f"(tensors must follow each other without gaps or overlaps)")
        end = stop
    if end != size - 8 - n:
        raise _Bad(f"the tensors take {end} bytes but the file holds {size - 8 - n} after "
                   f"the header")
    return entries, metadata, 8 + n


def _no_duplicates(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"the key {dup!r} appears twice")
    return out


def _entry(name: str, info) -> tuple:
    if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
        raise _Bad(f"tensor {_brief(name)}: expected dtype, shape and data_offsets, got "
                   f"{_brief(info)}")
    tag, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    dtype = _DTYPES.get(tag) if isinstance(tag, str) else None
    if dtype is None:
        raise _Bad(f"tensor {_brief(name)} has unsupported dtype {_brief(tag)}")
    if not (isinstance(shape, list) and len(shape) <= _MAX_NDIM and all(_is_int(d) for d in shape)):
        raise _Bad(f"tensor {_brief(name)}: shape must be a list of at most {_MAX_NDIM} "
                   f"non-negative ints, got {_brief(shape)}")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_is_int, offsets))):
        raise _Bad(f"tensor {_brief(name)}: data_offsets must be two non-negative ints, got "
                   f"{_brief(offsets)}")
    count = 1
    for d in shape:
        count *= d
    begin, end = offsets
    if end - begin != count * dtype.itemsize:
        raise _Bad(f"tensor {_brief(name)}: shape {shape} of {tag} needs "
                   f"{count * dtype.itemsize} bytes, data_offsets give {end - begin}")
    return name, dtype, tuple(shape), begin, end


def _brief(x) -> str:
    """A short repr of a value from the file (which may be huge or deeply nested)."""
    return reprlib.repr(x)


def _is_int(x) -> bool:
    return type(x) is int and 0 <= x < 2 ** 62


def _read_array(f, dtype, shape, name) -> np.ndarray:
    try:
        a = np.empty(shape, dtype.newbyteorder("<"))
    except (ValueError, OverflowError) as exc:  # e.g. (0, 2**61): no bytes, too many items
        raise _Bad(f"tensor {_brief(name)}: shape {list(shape)} is not a valid array "
                   f"({exc})") from None
    buf, filled = memoryview(a.reshape(-1).view(np.uint8)), 0
    while filled < len(buf):
        got = f.readinto(buf[filled:])
        if not got:
            raise _Bad(f"tensor {_brief(name)} ends past the end of the file (it shrank "
                       f"while being read)")
        filled += got
    return a if np.little_endian else a.astype(dtype)


def json_metadata(path: str, metadata: dict, key: str, kind):
    """``metadata[key]`` decoded from JSON: a ``kind`` of strings; errors name the file."""
    try:
        value = json.loads(metadata[key]) if key in metadata else kind()
    except (ValueError, RecursionError):
        value = None
    items = value.values() if isinstance(value, dict) else value
    if (not isinstance(value, kind)
            or not all(isinstance(v, str) for v in items)
            or (isinstance(value, dict) and not all(isinstance(k, str) for k in value))):
        raise ValueError(f"Failed to read the checkpoint file {path}: its metadata "
                         f"{key!r} is not a JSON {kind.__name__} of strings")
    return value
