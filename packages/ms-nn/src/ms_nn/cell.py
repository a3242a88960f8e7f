"""``Cell``: the base class of every network, layer and loss (MindSpore's ``nn.Cell``).

A Cell owns Parameters and child Cells through attribute assignment, names its
Parameters with MindSpore's dotted paths ("conv1.weight", "features.0.bias"), and runs
``construct`` when called: as operators in PYNATIVE_MODE, and in GRAPH_MODE compiled by
ms-graph (once per input signature, for the outermost Cell of a call).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ms_nn import cell_parallel, cell_recompute
from ms_nn.hooks import HookHandle
from ms_ops import functional as F
from ms_ops.dispatch import get_recorder
from ms_tensor import dtype as mstype
from ms_tensor.context import GRAPH_MODE, get_context
from ms_tensor.parameter import Parameter, ParameterTuple
from ms_tensor.tensor import Tensor

__all__ = ["Cell"]

_FLOAT_KINDS = frozenset({mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16})
# Bumped by every ``set_train``, ``to_float``, child Cell (re)assigned and plain attribute
# assigned or deleted: a GRAPH_MODE cell then recomputes its phase key (the training
# flags of its whole tree) and ``graph_state``.
_set_train_calls = [0]
# Cell bookkeeping that construct does not read (``_calling`` changes during every call).
_NOT_GRAPH_STATE = frozenset({"_calling", "_prefix", "_auto_prefix", "_graph_phase",
                              "_graph_constructs", "_graph_state"})


class Cell:
    """Base class of networks: subclass it, create layers and Parameters in
    ``__init__`` and write the forward computation in ``construct``.

    Args:
        auto_prefix: whether child cells assigned as attributes get their Parameters
            renamed with the attribute name as prefix ("fc.weight"). Turn it off for
            wrappers whose Parameters must keep the wrapped network's names.
        flags: initial flags (``add_flags``).

    A new Cell is in inference mode (``training`` is False), as in MindSpore: call
    ``set_train()`` before training. ``recompute()``: ``ms_nn.cell_recompute``.

    >>> class Net(Cell):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = Parameter(Tensor([1.0]))
    ...     def construct(self, x):
    ...         return x * self.w
    >>> [p.name for p in Net().get_parameters()]
    ['w']
    """

    # False where ``construct`` decides on tensor values in Python or writes Parameters
    # with numpy, which a compiled graph cannot repeat: GRAPH_MODE runs it as operators.
    _graph_capturable = True

    def __init__(self, auto_prefix: bool = True, flags: dict | None = None):
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_params_list"] = OrderedDict()
        d["_params_list_keys"] = {}
        d["_cells"] = OrderedDict()
        d["_auto_prefix"] = auto_prefix
        d["_prefix"] = ""
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = set()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_always"] = set()
        d["_compute_dtype"] = None
        d["_calling"] = 0
        d["_flags"] = {}
        d["training"] = False
        d["requires_grad"] = False
        d["phase"] = "predict"
        if flags:
            self.add_flags(**flags)

    # -- identity ----------------------------------------------------------------
    @property
    def cls_name(self) -> str:
        return type(self).__name__

    @property
    def param_prefix(self) -> str:
        """The prefix this cell's Parameter names carry (empty for a top-level cell)."""
        return self._prefix[:-1] if self._prefix.endswith(".") else self._prefix

    def _require_init(self, what: str) -> None:
        if "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: cannot {what} before "
                                 "Cell.__init__() was called; call super().__init__() first "
                                 "in __init__")

    # -- attributes: registration of Parameters and Cells ---------------------------
    def __getattr__(self, name: str):
        d = self.__dict__
        params = d.get("_params")
        if params is not None and name in params:
            p = params[name]
            if d["_calling"] and p is not None:
                return self._compute_view(p)
            return p
        for table in ("_cells", "_params_list"):
            entries = d.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"The '{type(self).__name__}' object has no attribute '{name}'.")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_params")
        cells = d.get("_cells")
        if isinstance(value, Parameter):
            self._require_init("assign Parameter " + repr(name))
            self._set_parameter(name, value)
        elif isinstance(value, Cell):
            self._require_init("assign Cell " + repr(name))
            self._forget(name)
            cells[name] = value
            _set_train_calls[0] += 1
            if self._auto_prefix:
                value.update_parameters_name(self._prefix + name + ".")
        elif isinstance(value, ParameterTuple):
            self._require_init("assign ParameterTuple " + repr(name))
            self._forget(name)
            self._check_unique_names(name, value)
            d["_params_list"][name] = value
            # Elements are found under the names they had when assigned, so renaming
            # them later (a parent's prefix) does not change their path in this cell.
            d["_params_list_keys"][name] = tuple(p.name for p in value)
        elif value is None and params is not None and (name in params or name in cells):
            (params if name in params else cells)[name] = None
        elif params is not None and name in params and params[name] is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"{type(self).__name__}: attribute '{name}' is a Parameter; "
                                f"assign a Parameter, a Tensor or None, got "
                                f"{type(value).__name__}")
            params[name].set_data(value, slice_shape=True)
        elif cells is not None and name in cells and cells[name] is not None:
            raise TypeError(f"{type(self).__name__}: attribute '{name}' is a Cell; assign a "
                            f"Cell or None, got {type(value).__name__}")
        else:
            if params is not None:
                self._forget(name)
            object.__setattr__(self, name, value)
            _set_train_calls[0] += 1

    def __delattr__(self, name: str) -> None:
        for table in ("_params", "_cells", "_params_list"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                del entries[name]
                return
        object.__delattr__(self, name)
        _set_train_calls[0] += 1

    def _forget(self, name: str) -> None:
        """Drop ``name`` from every table, so a new value can take its place."""
        d = self.__dict__
        d.pop(name, None)
        for table in ("_params", "_cells", "_params_list", "_params_list_keys"):
            d[table].pop(name, None)

    def _set_parameter(self, name: str, value: Parameter) -> None:
        params = self.__dict__["_params"]
        if not value.named or value.name == "Parameter":
            value.name = self._prefix + name
            value.named = True
        for other_name, other in params.items():
            if (other is not None and other is not value and other_name != name
                    and other.name == value.name):
                raise ValueError(f"{type(self).__name__}: Parameter '{name}' is named "
                                 f"'{value.name}', which Parameter '{other_name}' of the same "
                                 "cell already uses; give each Parameter a unique name")
        if name in params:
            params[name] = value
        else:
            self._forget(name)
            params[name] = value

    def _check_unique_names(self, name: str, value: ParameterTuple) -> None:
        seen = set()
        for p in value:
            if p.name in seen:
                raise ValueError(f"{type(self).__name__}: ParameterTuple '{name}' holds two "
                                 f"Parameters named '{p.name}'; give each a unique name")
            seen.add(p.name)

    def insert_param_to_cell(self, param_name: str, param: Parameter,
                             check_name_contain_dot: bool = True) -> None:
        """Add ``param`` under ``param_name`` (what attribute assignment does)."""
        self._require_init("insert a Parameter")
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"{self.cls_name}.insert_param_to_cell: param_name must be a "
                           f"non-empty str, got {param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"{self.cls_name}.insert_param_to_cell: param_name "
                           f"{param_name!r} must not contain '.'")
        if param_name in self.__dict__ or param_name in self._cells:
            raise KeyError(f"{self.cls_name}.insert_param_to_cell: attribute "
                           f"{param_name!r} already exists and is not a Parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"{self.cls_name}.insert_param_to_cell: param must be a "
                            f"Parameter, got {type(param).__name__}")
        if param is None:
            self._params[param_name] = None
        else:
            self._set_parameter(param_name, param)

    def insert_child_to_cell(self, child_name: str, child_cell: Cell) -> None:
        """Add ``child_cell`` as a child named ``child_name``; its Parameter names stay
        as they are (attribute assignment would prefix them)."""
        self._require_init("insert a child cell")
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"{self.cls_name}.insert_child_to_cell: child_name must be a "
                           f"non-empty str without '.', got {child_name!r}")
        if child_name in self._params or (child_name in self.__dict__
                                          and child_name not in self._cells):
            raise KeyError(f"{self.cls_name}.insert_child_to_cell: attribute "
                           f"{child_name!r} already exists; cannot insert a child cell "
                           "with the same name")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"{self.cls_name}.insert_child_to_cell: child_cell must be a "
                            f"Cell, got {type(child_cell).__name__}")
        self._cells[child_name] = child_cell

    def _register_child(self, key: str, cell: Cell) -> None:
        """Containers: add a child under ``key`` and prefix its Parameter names."""
        self._cells[key] = cell
        if self._auto_prefix:
            cell.update_parameters_name(self._prefix + key + ".")

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """Rename every Parameter to ``prefix`` + its path in this cell."""
        if not isinstance(prefix, str):
            raise TypeError(f"{self.cls_name}.update_parameters_name: prefix must be a str, "
                            f"got {type(prefix).__name__}")
        for name, param in self.parameters_and_names(expand=recurse):
            param.name = prefix + name
            param.named = True
        if recurse:
            for name, cell in self.cells_and_names():
                cell.__dict__["_prefix"] = prefix + name + "." if name else prefix
        else:
            self.__dict__["_prefix"] = prefix

    # -- traversal -----------------------------------------------------------------
    def _own_params(self):
        for name, p in self._params.items():
            if p is not None:
                yield name, p
        keys = self._params_list_keys
        for name, group in self._params_list.items():
            yield from zip(keys[name], group)

    def cells_and_names(self, cells=None, name_prefix: str = ""):
        """Yield ``(path, cell)`` for this cell and every descendant, each once."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is None:
                continue
            path = f"{name_prefix}.{name}" if name_prefix else name
            yield from cell.cells_and_names(seen, path)

    def name_cells(self) -> OrderedDict:
        """The direct children, by attribute name."""
        return OrderedDict((k, c) for k, c in self._cells.items() if c is not None)

    def cells(self):
        """The direct children."""
        return self.name_cells().values()

    def parameters_and_names(self, name_prefix: str = "", expand: bool = True):
        """Yield ``(path, Parameter)`` for each Parameter once: the cell's own first,
        then its children's in the order they were assigned."""
        seen = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [
            (name_prefix, self)]
        for cell_path, cell in cells:
            for name, p in cell._own_params():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{cell_path}.{name}" if cell_path else name), p

    def get_parameters(self, expand: bool = True):
        """Yield every Parameter once."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse: bool = True) -> list:
        """Parameters with ``requires_grad`` (what optimizers receive)."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list:
        """Parameters without ``requires_grad`` (BatchNorm's moving statistics)."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> OrderedDict:
        """An OrderedDict from Parameter name to Parameter."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> OrderedDict:
        """Parameters are created with their data here, so this only lists them."""
        return self.parameters_dict()

    def apply(self, fn) -> Cell:
        """Call ``fn(cell)`` on every descendant, then on this cell (e.g. to initialize
        weights); returns self."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    # -- modes and flags -------------------------------------------------------------
    def set_train(self, mode: bool = True) -> Cell:
        """Training (True) or inference (False) mode for this cell and all below it."""
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
            cell.__dict__["phase"] = "train" if mode else "predict"
            cell._flags["training"] = bool(mode)
        _set_train_calls[0] += 1
        return self

    def set_grad(self, requires_grad: bool = True) -> Cell:
        """Mark the cell as differentiated (kept for MindSpore compatibility; the eager
        tape needs no preparation)."""
        self.__dict__["requires_grad"] = bool(requires_grad)
        return self

    def add_flags(self, **flags) -> Cell:
        self._flags.update(flags)
        return self

    def add_flags_recursive(self, **flags) -> Cell:
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        return dict(self._flags)

    def to_float(self, dst_type) -> Cell:
        """Compute in ``dst_type`` (float16, bfloat16 or float32): floating-point
        inputs of this cell and of every cell below it are cast before ``construct``."""
        if dst_type not in (mstype.float16, mstype.float32, mstype.bfloat16):
            raise ValueError(f"{self.cls_name}.to_float: dst_type must be float16, bfloat16 "
                             f"or float32, got {dst_type}")
        for _, cell in self.cells_and_names():
            cell.__dict__["_compute_dtype"] = dst_type
        _set_train_calls[0] += 1
        return self

    # -- calling ---------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        """The forward computation; subclasses override it."""
        raise AttributeError(f"For '{self.cls_name}', the method 'construct' is not defined.")

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if "_params" not in d:
            raise AttributeError(f"{type(self).__name__}: Cell.__init__() was not called; "
                                 "call super().__init__() first in __init__")
        if d["_forward_pre_hooks"]:
            args, kwargs = self._run_pre_hooks(args, kwargs)
        if d["_compute_dtype"] is not None:
            return self._call_in_compute_dtype(args, kwargs)
        if not d["_forward_hooks"]:
            return self._run_construct(args, kwargs)
        try:
            out = self._run_construct(args, kwargs)
        except Exception:
            self._run_always_hooks(args)
            raise
        for hook in tuple(d["_forward_hooks"].values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        return out

    def _call_in_compute_dtype(self, args, kwargs):
        """``to_float``: inputs and trainable Parameters are cast to the compute dtype
        while ``construct`` runs (the casts are differentiable, so gradients reach the
        float32 Parameters)."""
        d = self.__dict__
        dtype = d["_compute_dtype"]
        args = tuple(_cast_float(a, dtype) for a in args)
        kwargs = {k: _cast_float(v, dtype) for k, v in kwargs.items()}
        d["_calling"] += 1
        try:
            out = self._run_construct(args, kwargs)
        except Exception:
            self._run_always_hooks(args)
            raise
        finally:
            d["_calling"] -= 1
        for hook in tuple(d["_forward_hooks"].values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        return out

    def _compute_view(self, param: Parameter):
        """What ``self.<param>`` gives inside ``construct`` of a ``to_float`` cell: a
        floating Parameter cast to the compute dtype. A cell that updates Parameters in
        place (BatchNorm's moving statistics: floating, not trainable) keeps all its
        Parameters as they are, as MindSpore keeps an operator's read-write inputs and
        the inputs that share their dtype."""
        dtype = self.__dict__["_compute_dtype"]
        if param.dtype == dtype or param.dtype not in _FLOAT_KINDS:
            return param
        for p in self._params.values():
            if p is not None and not p.requires_grad and p.dtype in _FLOAT_KINDS:
                return param
        from ms_ops import functional as F

        return F.cast(param, dtype)

    def _run_always_hooks(self, args) -> None:
        d = self.__dict__
        for hid in d["_forward_hooks_always"]:
            hook = d["_forward_hooks"].get(hid)
            if hook is not None:
                hook(self, args, None)

    def _run_construct(self, args, kwargs, marked=True):
        if marked and "_recompute" in self.__dict__ and get_recorder() is not None:
            return cell_recompute.call(self, self._run_construct, args, kwargs)
        bprop = getattr(type(self), "bprop", None)
        if bprop is None:
            if get_context("mode") == GRAPH_MODE:
                return self._run_graph(args, kwargs)
            if get_recorder() is not None:  # perhaps inside an AST capture (``@jit``)
                from ms_graph.convert.runtime import callee

                return callee(self.construct)(*args, **kwargs)
            return self.construct(*args, **kwargs)
        if kwargs:
            raise TypeError(f"{self.cls_name}: a Cell with a custom bprop takes positional "
                            f"inputs only, got keyword arguments {sorted(kwargs)}")
        from ms_autodiff import call_with_bprop

        return call_with_bprop(self.construct, self.bprop, *args, name=self.cls_name)

    def _run_graph(self, args, kwargs):
        """GRAPH_MODE: ``construct`` compiled by ms-graph, once per phase and input
        signature. The phase is the ``training`` flag of this cell and every cell below
        it: Dropout and BatchNorm read it while capturing, so it is folded into the
        graph, and a ``set_train`` switch (of any of them) selects another graph.

        Only the outermost Cell compiles: a Cell called while a graph is captured becomes
        part of it, one called under differentiation runs as operators (``ms_graph.jit``)."""
        construct = type(self).construct
        if hasattr(construct, "capture_mode") or not self._graph_capturable:
            return self.construct(*args, **kwargs)  # ``@jit``-compiled, or not capturable
        d = self.__dict__
        phase = d.get("_graph_phase")
        if phase is None or phase[0] != _set_train_calls[0]:
            flags = tuple(c.__dict__["training"] for _, c in self.cells_and_names())
            phase = d["_graph_phase"] = (_set_train_calls[0], flags)
        graphs = d.setdefault("_graph_constructs", {})
        compiled = graphs.get(phase[1])
        if compiled is None:
            from ms_graph.jit import JitFunction

            compiled = graphs[phase[1]] = JitFunction(construct, "ast")
        return compiled._call(self, *args, **kwargs)

    def compiled_graphs(self) -> list:
        """GRAPH_MODE: the graphs compiled for ``construct``, phase by phase in the order
        first compiled, each phase's least recently run first (empty when none was)."""
        return [g for jit_fn in self.__dict__.get("_graph_constructs", {}).values()
                for g in jit_fn.graphs()]

    def graph_state(self) -> tuple:
        """What ``construct`` reads besides Parameters, here and below: plain attribute
        values (``self.scale``, ``training``) and forward hooks; ms-graph keys compiled
        graphs on it. Recomputed only after an attribute or a hook changed."""
        d = self.__dict__
        cached = d.get("_graph_state")
        if cached is not None and cached[0] == _set_train_calls[0]:
            return cached[1]
        state = tuple((tuple(sorted((k, v) for k, v in c.__dict__.items()
                                    if k not in _NOT_GRAPH_STATE and _plain(v))),
                       tuple(c.__dict__.get("_forward_pre_hooks", ())),
                       tuple(c.__dict__.get("_forward_hooks", ())))
                      for _, c in self.cells_and_names())
        d["_graph_state"] = (_set_train_calls[0], state)
        return state

    def _run_pre_hooks(self, args, kwargs):
        d = self.__dict__
        for hid, hook in tuple(d["_forward_pre_hooks"].items()):
            if hid in d["_forward_pre_hooks_with_kwargs"]:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise TypeError(f"{self.cls_name}: a forward pre-hook registered "
                                        "with_kwargs=True must return None or (args, kwargs)")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        return args, kwargs

    # -- hooks -------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook_fn, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> HookHandle:
        """Call ``hook_fn(cell, inputs)`` before ``construct``; a non-None result
        replaces the inputs. With ``with_kwargs``, ``hook_fn(cell, args, kwargs)``
        returns None or ``(args, kwargs)``. ``handle.remove()`` unregisters it."""
        self._check_hook(hook_fn, "register_forward_pre_hook")
        hooks = self._forward_pre_hooks
        handle = HookHandle(hooks)
        hooks[handle.handle_id] = hook_fn
        _set_train_calls[0] += 1  # compiled graphs are keyed on the hooks
        if prepend:
            hooks.move_to_end(handle.handle_id, last=False)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.handle_id)
        return handle

    def register_forward_hook(self, hook_fn, *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> HookHandle:
        """Call ``hook_fn(cell, inputs, output)`` after ``construct``; a non-None result
        replaces the output. With ``always_call`` it also runs (with output None) when
        ``construct`` raises. ``handle.remove()`` unregisters it."""
        self._check_hook(hook_fn, "register_forward_hook")
        if with_kwargs:
            raise NotImplementedError("register_forward_hook: with_kwargs=True is not "
                                      "supported; read keyword inputs in a pre-hook")
        hooks = self._forward_hooks
        handle = HookHandle(hooks)
        hooks[handle.handle_id] = hook_fn
        _set_train_calls[0] += 1  # compiled graphs are keyed on the hooks
        if prepend:
            hooks.move_to_end(handle.handle_id, last=False)
        if always_call:
            self._forward_hooks_always.add(handle.handle_id)
        return handle

    def _check_hook(self, hook_fn, what: str) -> None:
        if not callable(hook_fn):
            raise TypeError(f"{self.cls_name}.{what}: hook_fn must be callable, got "
                            f"{type(hook_fn).__name__}")

    # -- printing --------------------------------------------------------------------
    def extend_repr(self) -> str:
        """Extra text inside the cell's repr (layers show their configuration)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extend_repr()
        children = [(k, c) for k, c in self.__dict__.get("_cells", {}).items() if c is not None]
        if not children:
            return f"{self.cls_name}({extra})"
        lines = [f"{self.cls_name}("]
        if extra:
            lines.extend("  " + line for line in extra.split("\n"))
        for key, cell in children:
            text = repr(cell).replace("\n", "\n  ")
            lines.append(f"  ({key}): {text}")
        lines.append(")")
        return "\n".join(lines)

    shard = cell_parallel.shard
    recompute = cell_parallel.recompute

    def __dir__(self):
        names = set(super().__dir__())
        for table in ("_params", "_cells", "_params_list"):
            names.update(self.__dict__.get(table, ()))
        return sorted(names)


def _cast_float(value, dtype):
    if isinstance(value, Tensor) and value.dtype in _FLOAT_KINDS and value.dtype != dtype:
        return F.cast(value, dtype)
    return value


_PLAIN = frozenset({bool, int, float, str, type(None), mstype.DType})


def _plain(v) -> bool:
    if type(v) in _PLAIN or isinstance(v, np.generic):
        return True
    return type(v) is tuple and all(_plain(x) for x in v)
