"""``Parameter``: a named, trainable Tensor that networks own and optimizers update."""

from __future__ import annotations

from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor, _to_array

__all__ = ["Parameter", "ParameterTuple"]


class Parameter(Tensor):
    """A Tensor with a name that training updates in place.

    Args:
        default_input: initial value (Tensor, numpy array, list or scalar).
        name: the parameter's name; networks give it their dotted attribute path.
        requires_grad: whether ``grad(..., weights=...)`` and optimizers use it.
        layerwise_parallel, parallel_optimizer: accepted for MindSpore compatibility.

    Attributes:
        named: the name is the parameter's own (given, or set by the Cell holding it).

    >>> Parameter(Tensor([1.0]), name="w")
    Parameter (name=w, shape=(1,), dtype=Float32, requires_grad=True)
    """

    __slots__ = ("name", "requires_grad", "layerwise_parallel", "parallel_optimizer",
                 "named")

    def __init__(self, default_input, name: str | None = None, requires_grad: bool = True,
                 layerwise_parallel: bool = False, parallel_optimizer: bool = True):
        if isinstance(default_input, Tensor):
            data = default_input._data.copy()
        elif isinstance(default_input, bool):
            raise ValueError("Parameter: default_input cannot be a bool")
        elif isinstance(default_input, int):  # MindSpore makes an int parameter int32
            data = _to_array(default_input, mstype.int32)
        else:
            data = _to_array(default_input, None)
        self._data = data
        self._node = None
        self.name = "Parameter" if name is None else name
        # True once the name is the parameter's own (given here, or set by the Cell
        # that holds it); a Cell names a parameter that is not after its attribute path.
        self.named = name is not None
        self.requires_grad = bool(requires_grad)
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer

    def set_data(self, data, slice_shape: bool = False) -> Parameter:
        """Replace the value in place; the shape must stay the same unless it was 0-d."""
        new = data._data if isinstance(data, Tensor) else _to_array(data, None)
        if new.shape != self._data.shape and not slice_shape and self._data.ndim != 0:
            raise ValueError(f"Parameter {self.name!r}.set_data: shape {new.shape} does not "
                             f"match the parameter's shape {self._data.shape}")
        if new.dtype != self._data.dtype:
            new = new.astype(self._data.dtype)
        self._data = new.copy() if isinstance(data, Tensor) else new
        return self

    def clone(self, init: str = "same") -> Parameter:
        """A new Parameter with a copy of the data and the same attributes."""
        p = Parameter(self._data.copy(), name=self.name, requires_grad=self.requires_grad,
                      layerwise_parallel=self.layerwise_parallel,
                      parallel_optimizer=self.parallel_optimizer)
        if init != "same":
            raise ValueError(f"Parameter.clone: init must be 'same', got {init!r}")
        return p

    @property
    def data(self) -> Parameter:
        return self

    def value(self) -> Tensor:
        return Tensor(self._data)

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={self._data.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__

    def __reduce__(self):
        return (Parameter, (self._data, self.name, self.requires_grad))


class ParameterTuple(tuple):
    """A tuple of Parameters (MindSpore's type for ``weights``)."""

    def __new__(cls, iterable=()):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple: every element must be a Parameter, got "
                                f"{type(p).__name__}")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: str = "same") -> ParameterTuple:
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
