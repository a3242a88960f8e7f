"""``OpDef``: everything about one operator, stated once.

An OpDef holds the signature (tensor inputs, static inputs, Primitive attributes),
the shape/dtype inference, the promotion rule and the names it goes by (``functional=``,
``methods=``). Its kernels, gradient rule and samples are declared right below it with
``@Op.kernel("CPU", dtypes=...)``, ``@Op.bprop`` and ``@Op.samples``, and one call,
``registry.add_ops(Op, ...)``, registers all of it (``registrations()``). Calling an
OpDef runs it eagerly (functional style: ``Add(x, y)``, ``MatMul(x, y,
transpose_b=True)``); ``opdef.primitive`` is the MindSpore class style
(``ops.MatMul(transpose_b=True)(x, y)``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ms_tensor import dtype as mstype

__all__ = ["Arg", "Attr", "TensorSpec", "OpDef", "REQUIRED", "TENSOR", "STATIC", "functional"]

TENSOR = "tensor"
STATIC = "static"


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


class Arg:
    """One call argument. ``kind=TENSOR`` inputs become arrays; ``STATIC`` ones (axis,
    shape, ...) stay Python values known at compile time. A tensor input with
    ``default=None`` is optional: left out, inference and the kernel receive ``None``."""

    __slots__ = ("name", "kind", "default", "promote")

    def __init__(self, name: str, kind: str = TENSOR, default: Any = REQUIRED,
                 promote: bool = True):
        if kind not in (TENSOR, STATIC):
            raise ValueError(f"Arg {name!r}: kind must be TENSOR or STATIC, got {kind!r}")
        self.name = name
        self.kind = kind
        self.default = default
        self.promote = promote and kind == TENSOR

    def __repr__(self) -> str:
        d = "" if self.default is REQUIRED else f"={self.default!r}"
        return f"{self.name}{d}" if self.kind == TENSOR else f"{self.name}:static{d}"


class Attr:
    """A Primitive constructor argument (``MatMul(transpose_b=True)``)."""

    __slots__ = ("name", "default")

    def __init__(self, name: str, default: Any = REQUIRED):
        self.name = name
        self.default = default

    def __repr__(self) -> str:
        return self.name if self.default is REQUIRED else f"{self.name}={self.default!r}"


class TensorSpec:
    """The abstract value inference works on: a shape and a dtype, no data."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype is other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"TensorSpec({self.shape}, {self.dtype})"


class OpDef:
    """One operator.

    Args:
        name: MindSpore's Primitive class name (``"MatMul"``).
        inputs: the call arguments, in order (``Arg``).
        attrs: the Primitive constructor arguments (``Attr``).
        infer: ``infer(*specs_and_statics, **attrs) -> TensorSpec | tuple`` run before any
            kernel; it raises ValueError/TypeError naming the operator and what it got.
        promote: how tensor inputs are cast before the kernel: ``"common"`` (MindSpore's
            promotion), ``"float"`` (as common, then integers -> float32), or ``None``.
        differentiable: False for operators without a gradient (comparisons, argmax, ...);
            ``nondiff_inputs`` names tensor inputs that take no gradient (indices).
        stateful: the kernel takes ``state=`` (a numpy Generator, for random operators).
        seed_attrs: the attributes that seed a stateful operator's generator (MindSpore
            spells them ``seed``/``seed2`` on most operators, ``Seed0``/``Seed1`` on Dropout).
        inplace: index of the input the kernel writes into, and the call returns; a tuple
            of indices for operators that update several (Adam: ``var, m, v``).
        writes: indices of inputs the kernel also updates in place without returning
            them (BatchNorm's moving statistics in training; MindSpore's RW_WRITE).
        side_effect_io: the kernel does input/output outside its arrays (summary
            operators hand their value to the summary writer; MindSpore's
            ``side_effect_io``): graph passes never fold, merge or remove such a call,
            so it runs on every call of a compiled graph, as in PyNative.
        functional: the ``ops.<name>`` names that call the operator (a name or several).
        methods: the ``Tensor`` methods that call it with the tensor first; a binary
            dunder (``"__add__"``) brings its reflected form (``"__radd__"``).
        c_template: C source for ms-lite's code generator, registered with the operator.
        aliases: other MindSpore class names of the Primitive (``"Conv2DTranspose"``).
    """

    def __init__(self, name: str, inputs=(), attrs=(), *, infer: Callable,
                 promote: str | None = None, differentiable: bool = True,
                 nondiff_inputs=(), stateful: bool = False, seed_attrs=("seed", "seed2"),
                 inplace: int | tuple | None = None, writes: tuple = (),
                 side_effect_io: bool = False, doc: str = "",
                 functional=(), methods=(), c_template: str | None = None, aliases=()):
        self.name = name
        # The module that defines the operator (through a factory in it, or directly):
        # ``ms_ops.defs.operators(module)`` lists a family's own operators by it.
        self.module = sys._getframe(1).f_globals.get("__name__")
        self.inputs = tuple(inputs)
        self.attrs = tuple(attrs)
        self.infer = infer
        if promote not in (None, "common", "float"):
            raise ValueError(f"OpDef {name}: promote must be None, 'common' or 'float'")
        self.promote = promote
        self.differentiable = differentiable
        self.nondiff_inputs = frozenset(nondiff_inputs)
        self.stateful = stateful
        self.seed_attrs = tuple(seed_attrs)
        self.inplace = inplace
        self.writes = tuple(writes)
        self.side_effect_io = bool(side_effect_io)
        self.__doc__ = doc or f"The {name} operator."
        self.input_names = tuple(a.name for a in self.inputs)
        self.attr_names = tuple(a.name for a in self.attrs)
        self.tensor_index = tuple(i for i, a in enumerate(self.inputs) if a.kind == TENSOR)
        self.static_names = tuple(a.name for a in self.inputs if a.kind == STATIC)
        self._plain = not self.attrs and not stateful and inplace is None and all(
            a.kind == TENSOR for a in self.inputs)
        self.attr_defaults = {a.name: a.default for a in self.attrs}
        self.functional = (functional,) if isinstance(functional, str) else tuple(functional)
        self.methods = (methods,) if isinstance(methods, str) else tuple(methods)
        self.c_template = c_template
        self.aliases = tuple(aliases)
        self.kernels: dict[str, tuple] = {}  # backend -> (fn, dtypes, out)
        self.bprop_fn = None
        self.samples_fn = None
        self._primitive = None

    def __repr__(self) -> str:
        sig = ", ".join(map(repr, self.inputs))
        attrs = ", ".join(map(repr, self.attrs))
        return f"<OpDef {self.name}({sig}){' [' + attrs + ']' if attrs else ''}>"

    # -- declaring ------------------------------------------------------------------
    def kernel(self, backend: str, *, dtypes=None, out: bool = False):
        """Decorator: ``fn`` is this operator's kernel on ``backend`` for ``dtypes``.

        ``out=True``: ``fn`` also accepts ``out=``, an array of the result's shape and
        dtype to fill (engines that plan memory pass one).
        """
        def declare(fn):
            self.kernels[backend] = (fn, dtypes, out)
            return fn
        return declare

    def bprop(self, fn):
        """Decorator: ``fn(*inputs, out, dout, **attrs)`` is the gradient rule."""
        self.bprop_fn = fn
        return fn

    def samples(self, fn):
        """Decorator: ``fn(rng)`` yields ``(args, attrs)`` that the registry-wide gradient
        and kernel suites run the operator on."""
        self.samples_fn = fn
        return fn

    def registrations(self):
        """What ``registry.add_op`` records: ``(kind, name, backend, value, info)``."""
        from ms_ops.dispatch import method_for

        yield "primitive", self.name, None, self, {}
        for backend, (fn, dtypes, out) in self.kernels.items():
            yield "kernel", self.name, backend, fn, {"dtypes": dtypes, "out": out}
        for kind, value in (("bprop", self.bprop_fn), ("op_sample", self.samples_fn),
                            ("c_template", self.c_template)):
            if value is not None:
                yield kind, self.name, None, value, {}
        for name in (self.name, *self.aliases):
            yield "function", name, None, self.primitive, {}
        for name in self.functional:
            yield "function", name, None, self, {}
        for name in self.methods:
            yield "tensor_method", name, None, _named(method_for(self), name), {}
            if name in _REFLECTED:
                yield ("tensor_method", _REFLECTED[name], None,
                       _named(method_for(self, reflected=True), _REFLECTED[name]), {})

    # -- calling -------------------------------------------------------------------
    def bind(self, args: tuple, kwargs: dict, with_attrs: bool = True) -> tuple[list, dict]:
        """Split a functional call into (input values, attribute values), with defaults.

        With ``with_attrs=False`` (a Primitive instance's call) only inputs are accepted.
        """
        n_in = len(self.inputs)
        n_max = n_in + (len(self.attrs) if with_attrs else 0)
        if len(args) > n_max:
            names = self.input_names + (self.attr_names if with_attrs else ())
            raise TypeError(f"{self.name}: takes at most {n_max} arguments "
                            f"({', '.join(names)}), got {len(args)}")
        values = list(args[:n_in])
        attrs = dict(zip(self.attr_names, args[n_in:]))
        for k, v in kwargs.items():
            if k in self.input_names:
                i = self.input_names.index(k)
                if i < len(values):
                    raise TypeError(f"{self.name}: got multiple values for argument {k!r}")
                values.extend([REQUIRED] * (i + 1 - len(values)))
                values[i] = v
            elif with_attrs and k in self.attr_defaults:
                if k in attrs:
                    raise TypeError(f"{self.name}: got multiple values for argument {k!r}")
                attrs[k] = v
            else:
                names = self.input_names + (self.attr_names if with_attrs else ())
                raise TypeError(f"{self.name}: unexpected argument {k!r}; arguments are "
                                f"{', '.join(names)}")
        values.extend([REQUIRED] * (n_in - len(values)))
        for i, a in enumerate(self.inputs):
            if values[i] is REQUIRED:
                if a.default is REQUIRED:
                    raise TypeError(f"{self.name}: missing required argument {a.name!r}")
                values[i] = a.default
        return values, (self.complete_attrs(attrs) if with_attrs else attrs)

    def complete_attrs(self, attrs: dict) -> dict:
        if len(attrs) == len(self.attrs):
            return attrs
        out = {}
        for a in self.attrs:
            if a.name in attrs:
                out[a.name] = attrs[a.name]
            elif a.default is REQUIRED:
                raise TypeError(f"{self.name}: missing required attribute {a.name!r}")
            else:
                out[a.name] = a.default
        return out

    def __call__(self, *args, **kwargs):
        from ms_ops.dispatch import execute, execute_plain

        if not kwargs and len(args) == len(self.inputs) and not self.attrs:
            if self._plain:
                return execute_plain(self, args)
            return execute(self, args, _NO_ATTRS)
        values, attrs = self.bind(args, kwargs)
        return execute(self, values, attrs)

    def new_generator(self, attrs: dict):
        """A numpy Generator for one stateful call site, seeded from ``seed_attrs``."""
        from ms_tensor.seed import next_generator

        seeds = [attrs.get(name) or 0 for name in self.seed_attrs]
        for name, value in zip(self.seed_attrs, seeds):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{self.name}: {name} must be an int, got {value!r}")
        return next_generator(*seeds[:2])

    def run_infer(self, *args, **attrs):
        """Inference with the operator's name put in front of any error it raises."""
        try:
            return self.infer(*args, **attrs)
        except (ValueError, TypeError) as e:
            msg = str(e)
            if msg.startswith(f"{self.name}:"):
                raise
            raise type(e)(f"{self.name}: {msg}") from None

    def abstract_eval(self, *specs, **attrs):
        """Inference only: specs for tensor inputs, Python values for static ones."""
        return self.run_infer(*specs, **self.complete_attrs(attrs))

    @property
    def written(self) -> tuple:
        """Indices of every input the kernel writes into (``inplace`` and ``writes``)."""
        inplace = () if self.inplace is None else \
            (self.inplace,) if type(self.inplace) is int else self.inplace
        return tuple(inplace) + self.writes

    @property
    def primitive(self) -> type:
        """The MindSpore-style Primitive class for this operator (``ops.MatMul``)."""
        if self._primitive is None:
            from ms_ops.primitive import make_primitive_class

            self._primitive = make_primitive_class(self)
        return self._primitive


_NO_ATTRS: dict = {}
_REFLECTED = {f"__{n}__": f"__r{n}__" for n in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor")}


def _named(fn, name: str):
    fn.__name__ = fn.__qualname__ = name
    return fn


def functional(*names: str, methods=(), prop: bool = False):
    """Decorator for a function that is not one operator (``clamp``, ``softmax``): it is
    ``ops.<name>`` for each of ``names`` and ``Tensor.<m>`` for each of ``methods`` (the
    tensor is its first argument; ``prop=True`` makes the methods properties, ``x.T``).
    The family's plugin registers it with ``registry.add_function``."""
    def declare(fn):
        fn.ms_functional = (names, (methods,) if isinstance(methods, str) else tuple(methods),
                            prop)
        return fn
    return declare


def primitive_class(name: str, fn, attrs: tuple[str, ...] = ()):
    """The Primitive-style class of a function that is a composition, not one OpDef:
    ``ops.<name>(*attrs)(*inputs)`` calls ``fn(*inputs, **attrs)`` (MindSpore spells many
    functions twice: ``ops.hypot(x, y)`` and ``ops.Hypot()(x, y)``, ``ops.celu(x, alpha)``
    and ``ops.CeLU(alpha)(x)``). Registered as ``ops.<name>`` by the defining family."""

    def __init__(self, *args, **kwargs):
        if len(args) > len(attrs):
            raise TypeError(f"{name}: takes at most {len(attrs)} arguments "
                            f"({', '.join(attrs) or 'none'}), got {len(args)}")
        unknown = set(kwargs) - set(attrs)
        if unknown:
            raise TypeError(f"{name}: unexpected argument {sorted(unknown)[0]!r}; "
                            f"arguments are {', '.join(attrs) or 'none'}")
        self.attrs = dict(zip(attrs, args), **kwargs)

    def __call__(self, *inputs):
        return fn(*inputs, **self.attrs)

    def __repr__(self):
        return f"Prim[{name}]"

    cls = type(name, (), {"__init__": __init__, "__call__": __call__, "__repr__": __repr__,
                          "__doc__": f"``ops.{name}()``: the class form of "
                                     f"``ops.{getattr(fn, '__name__', name)}``."})
    cls.__module__ = sys._getframe(1).f_globals["__name__"]
    return functional(name)(cls)


def dtype_names(dtypes) -> str:
    return ", ".join(sorted(str(d) for d in dtypes))


FLOATS = mstype.float_types
INTS = mstype.int_types
NUMBERS = mstype.number_types
ALL = frozenset(mstype.all_types)
