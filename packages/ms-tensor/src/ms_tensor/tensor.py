"""``Tensor``: an n-dimensional array with MindSpore's semantics.

A Tensor holds one backend array (numpy on the CPU). Everything that computes is an
operator found through the registry: ms-tensor defines no arithmetic itself, so the
same definition serves ``x + y``, ``ops.add(x, y)`` and ``ops.Add()(x, y)``. Operator
methods are installed on the class when the registry loads; until then each
dispatched name is a small stub that loads the registry and calls again.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from ms_tensor import dtype as mstype
from ms_tensor import registry as _registry
from ms_tensor._format import tensor_repr, tensor_str

__all__ = ["Tensor", "wrap", "is_tensor", "array_of", "set_array", "node_of", "set_node",
           "set_value_read_hook", "value_read_hook"]

_new = object.__new__
_from_np = mstype._FROM_NP
_value_read = None  # see set_value_read_hook


def set_value_read_hook(hook):
    """Call ``hook(tensor, what)`` before Python reads a tensor's values (``float(t)``,
    ``bool(t)``, ``t.item()``, ``t.asnumpy()``, ``np.asarray(t)``...); None removes it.
    Returns the previous hook.

    ms-graph installs one while it captures a graph: a value read there would become a
    constant of the graph, stale on later calls, so its hook raises instead. The hook
    runs in the frame of the Tensor method; its caller is two frames up.
    """
    global _value_read
    previous, _value_read = _value_read, hook
    return previous


def value_read_hook():
    """The hook ``set_value_read_hook`` installed, or None. ms-graph sets one only while it
    captures, so operators that compute on the host from their inputs' values (whose
    results a graph would freeze) can refuse to run then."""
    return _value_read


class Tensor:
    """An n-dimensional array.

    Args:
        input_data: a numpy array, a (nested) list or tuple, a Python scalar or a Tensor.
        dtype: a ``ms_tensor`` dtype (``ms_tensor.float32``); by default numpy arrays
            keep theirs, Python floats become float32, ints int64 and bools bool_.
        shape, init: with ``input_data=None``, a shape and an initializer (a callable
            that fills a numpy array, e.g. one of ms-nn's Initializers).

    >>> Tensor(np.array([1.0, 2.0]), mstype.float32).shape
    (2,)
    """

    __slots__ = ("_data", "_node", "__weakref__")
    __array_priority__ = 100  # numpy defers ``ndarray + Tensor`` to Tensor.__radd__

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False,
                 internal=False):
        self._node = None
        if input_data is None:
            if shape is None:
                raise ValueError("Tensor: give input_data, or shape and dtype with init")
            np_dtype = mstype.to_numpy(dtype if dtype is not None else mstype.float32)
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            arr = np.zeros(shape, dtype=np_dtype)
            if init is not None:
                _fill_from_initializer(arr, init)
            self._data = arr
            return
        if shape is not None or init is not None:
            raise ValueError("Tensor: shape and init are only used when input_data is None")
        self._data = _to_array(input_data, dtype)

    # -- what a Tensor is ----------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def dtype(self) -> mstype.DType:
        return _from_np[self._data.dtype]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def strides(self) -> tuple:
        return self._data.strides

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    def asnumpy(self) -> np.ndarray:
        """The data as a numpy array (shared with the tensor on the CPU backend)."""
        if _value_read is not None:
            _value_read(self, "asnumpy()")
        return self._data

    numpy = asnumpy

    def item(self, index=None):
        if _value_read is not None:
            _value_read(self, "item()")
        a = self._data
        if index is None and a.size != 1:
            raise ValueError(f"Tensor.item: only a tensor with one element can be "
                             f"converted to a Python scalar, got shape {a.shape}")
        return a.item() if index is None else a.item(index)

    def tolist(self):
        if _value_read is not None:
            _value_read(self, "tolist()")
        return self._data.tolist()

    def init_data(self):
        return self

    def copy(self) -> Tensor:
        return wrap(self._data.copy())

    def set_dtype(self, dtype) -> Tensor:
        self._data = self._data.astype(mstype.to_numpy(dtype))
        return self

    def assign_value(self, value) -> Tensor:
        """Replace the data in place (shape and dtype may change, as in MindSpore)."""
        self._data = _to_array(value, None)
        return self

    # -- Python protocols ----------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        if _value_read is not None:
            _value_read(self, "a numpy conversion (np.asarray)")
        a = self._data
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def __dlpack__(self, stream=None):
        return self._data.__dlpack__()

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d Tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    def __bool__(self) -> bool:
        if _value_read is not None:
            _value_read(self, "bool() (an assert, and/or/not, or a Python if)")
        if self._data.size != 1:
            raise ValueError(f"the truth value of a Tensor of shape {self._data.shape} is "
                             "ambiguous; use .any() or .all()")
        return bool(self._data)

    def __float__(self) -> float:
        if _value_read is not None:
            _value_read(self, "float()")
        return float(self.item())

    def __int__(self) -> int:
        if _value_read is not None:
            _value_read(self, "int()")
        return int(self.item())

    def __index__(self) -> int:
        if _value_read is not None:
            _value_read(self, "use as an index or int")
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError(f"only integer Tensors of a single element can be used as an "
                            f"index, got {self.dtype} of shape {self._data.shape}")
        return int(self._data.item())

    def __complex__(self) -> complex:
        if _value_read is not None:
            _value_read(self, "complex()")
        return complex(self.item())

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return format(str(self), spec)

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __str__(self) -> str:
        return tensor_str(self)

    def __reduce__(self):
        return (Tensor, (self._data,))

    def __getattr__(self, name: str):
        # Reached only for names not on the class: load the registry once, which
        # installs the operator methods, and look again.
        if name.startswith("__") or _registry.loaded() is not None:
            raise AttributeError(f"'Tensor' object has no attribute {name!r}")
        _registry.load()
        return object.__getattribute__(self, name)


def _dispatch_stub(name: str):
    def stub(self, *args, **kwargs):
        _registry.load()
        method = getattr(type(self), name)
        if getattr(method, "_ms_stub", False):
            raise TypeError(f"Tensor.{name} is provided by an operator package, and none is "
                            "registered; install ms-ops (pip install ms-ops)")
        return method(self, *args, **kwargs)

    stub.__name__ = name
    stub._ms_stub = True
    return stub


# Names the operator packages install; listed here so that Python's operator protocol
# (which looks only at the class) finds them before the registry has loaded.
DISPATCHED_DUNDERS = (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
    "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__", "__abs__", "__invert__",
    "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lt__", "__le__",
    "__gt__", "__ge__", "__eq__", "__ne__", "__getitem__", "__setitem__",
)
for _name in DISPATCHED_DUNDERS:
    setattr(Tensor, _name, _dispatch_stub(_name))
_STUBS = {n: getattr(Tensor, n) for n in DISPATCHED_DUNDERS}
_installed: list[str] = []


def _install_methods(reg) -> None:
    """Put the registered methods on Tensor (after each registry load)."""
    for name in _installed:
        if name in _STUBS:
            setattr(Tensor, name, _STUBS[name])
        else:
            delattr(Tensor, name)
    _installed.clear()
    for entry in reg.entries("tensor_method"):
        if entry.name in Tensor.__dict__ and entry.name not in _STUBS:
            continue  # never shadow what ms-tensor defines itself (shape, dtype, ...)
        value = entry.value
        if entry.name in ("__eq__", "__ne__"):
            value = _none_compares_by_identity(value)
        setattr(Tensor, entry.name, value)
        _installed.append(entry.name)


def _none_compares_by_identity(method):
    """``t == None`` is False and ``t != None`` True, as in MindSpore, not an operator error."""
    def compare(self, other):
        # NotImplemented makes Python fall back to identity: False for ==, True for !=.
        return NotImplemented if other is None else method(self, other)

    compare.__name__ = compare.__qualname__ = getattr(method, "__name__", "compare")
    compare.__doc__ = method.__doc__
    return compare


_registry.on_load(_install_methods)


def wrap(array) -> Tensor:
    """A Tensor around a backend array, without copying or checking (the hot path)."""
    t = _new(Tensor)
    t._data = array
    t._node = None
    return t


# Zero-copy access for the packages that build on Tensor (kernels, autodiff, graphs):
# ``array_of(t)`` is t's backend array (shared, never copied), ``set_array(t, a)`` makes
# ``a`` its data; ``node_of``/``set_node`` hold the autodiff record (None when untracked).
# C-level accessors: no Python frame (``wrap`` builds a new Tensor around an array).
array_of = operator.attrgetter("_data")
set_array = Tensor.__dict__["_data"].__set__
node_of = operator.attrgetter("_node")
set_node = Tensor.__dict__["_node"].__set__


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _to_array(data, dtype) -> np.ndarray:
    np_dtype = None if dtype is None else mstype.to_numpy(dtype)
    if isinstance(data, Tensor):
        arr = data._data
        return arr.copy() if np_dtype is None else _cast(arr, np_dtype)
    if isinstance(data, np.ndarray):
        if np_dtype is None:
            if data.dtype not in _from_np:
                mstype.from_numpy(data.dtype)  # raises naming the unsupported dtype
            return data.copy()
        return _cast(data, np_dtype)
    if isinstance(data, np.generic):
        return _cast(np.asarray(data), np_dtype) if np_dtype is not None else np.array(data)
    if isinstance(data, (bool, numbers.Number, list, tuple)):
        try:
            if np_dtype is None:
                return np.array(data, dtype=_python_default_dtype(data))
            # Into an integer dtype via the values' own dtype, so that _cast checks the range
            # (numpy 1.x wraps Python ints silently).
            arr = np.array(data) if np_dtype.kind in "iu" else None
            if arr is None or arr.dtype.kind not in "iufb":
                return np.array(data, dtype=np_dtype)
        except (ValueError, OverflowError) as e:
            raise ValueError(f"Tensor: cannot build a tensor from {type(data).__name__} data "
                             f"as {mstype.from_numpy(np_dtype)}: {e}") from None
        return _cast(arr, np_dtype)
    if hasattr(data, "__array__") or hasattr(data, "__dlpack__"):
        return _to_array(np.asarray(data), dtype)
    raise TypeError(f"Tensor: input_data must be a numpy array, list, tuple, scalar or "
                    f"Tensor, got {type(data).__name__}")


def _cast(arr: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """``arr`` as ``np_dtype``; a value an integer dtype cannot hold is an error (numpy wraps
    it: 2**40 as int32 is 0, 3e9 is -2147483648), where MindSpore wraps silently."""
    if (np_dtype.kind in "iu" and arr.dtype.kind in "iuf" and arr.size
            and not np.can_cast(arr.dtype, np_dtype)):
        info = np.iinfo(np_dtype)
        for value in (arr.min().item(), arr.max().item()):
            # exact Python comparisons; a float is truncated, so (min - 1, max + 1) fits
            if value != value or not info.min - 1 < value < info.max + 1:
                raise ValueError(f"Tensor: the value {value!r} does not fit in "
                                 f"{mstype.from_numpy(np_dtype)} ({info.min} to {info.max}); "
                                 f"cast it with numpy first to wrap it on purpose")
    return arr.astype(np_dtype)


def _python_default_dtype(data):
    """MindSpore's defaults for Python data: float -> float32, int -> int64."""
    kinds = set()
    _scan_kinds(data, kinds)
    if "c" in kinds:
        return np.complex64
    if "f" in kinds:
        return np.float32
    if "i" in kinds:
        return np.int64
    if "b" in kinds:
        return np.bool_
    return np.float32


def _scan_kinds(data, kinds: set) -> None:
    if isinstance(data, (list, tuple)):
        for d in data:
            _scan_kinds(d, kinds)
    elif isinstance(data, bool | np.bool_):
        kinds.add("b")
    elif isinstance(data, numbers.Integral):
        kinds.add("i")
    elif isinstance(data, numbers.Real):
        kinds.add("f")
    elif isinstance(data, numbers.Complex):
        kinds.add("c")
    elif isinstance(data, Tensor | np.ndarray | np.generic):
        kinds.add(np.asarray(data).dtype.kind)


def _fill_from_initializer(arr: np.ndarray, init) -> None:
    if isinstance(init, str):
        raise TypeError(f"Tensor: init={init!r} given by name needs ms-nn's initializers; "
                        "pass an Initializer object")
    if not callable(init):
        raise TypeError("Tensor: init must be an Initializer (callable), got "
                        f"{type(init).__name__}")
    init(arr)
