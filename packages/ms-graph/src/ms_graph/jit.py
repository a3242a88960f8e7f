"""``jit``: compile a function (or a Cell's ``construct``) on first call, per signature.

The first call with a given input signature captures the function (``trace``; with
``capture_mode="ast"`` after ``ms_graph.convert`` has rewritten its tensor control flow),
runs the registered optimization passes and prepares an ``Executable``; that first call's
result is the captured run's own. Later calls with the same signature run the graph.

The signature is: the structure of the arguments, each Tensor's shape and dtype, which
Tensor arguments are the same array, the Python values of the other arguments, and the
identity of the Parameters of the Cells the function belongs to (replacing a Parameter
object recompiles; updating its values does not, the graph reads them when it runs).

Called inside another capture, the function becomes part of that graph. Called under a
recording tape (``grad(jit_fn)``), it runs a compiled forward graph and records one call
whose gradient runs a compiled backward graph (``ms_graph.jit_grad``).
"""

from __future__ import annotations

import contextlib
import functools
import types

from ms_autodiff.tape import active_tapes
from ms_graph import jit_grad, jit_options
from ms_graph.debug import GraphDumper, save_graphs_dir
from ms_graph.executor import Executable
from ms_graph.graph_cache import GraphCache
from ms_graph.trace import current_tracer, flatten, trace_and_run, unflatten, watched_parameters
from ms_ops.dispatch import static_key
from ms_tensor import registry as _registry
from ms_tensor.context import get_context
from ms_tensor.tensor import Tensor, array_of, wrap

__all__ = ["jit", "JitFunction", "compile", "optimize"]

CAPTURE_MODES = ("ast", "trace")


def optimize(graph, name: str | None = None, jit_level: str | None = None):
    """Run the registered ``optimize`` passes in order (saving each stage if asked), then
    the ``schedule`` ones (which order the final graph's nodes for running, such as
    ms-parallel's overlap of communication); ``jit_level`` "O0" leaves out fusion
    (``ms_graph.jit_options``)."""
    directory = save_graphs_dir()
    dumper = None if directory is None else GraphDumper(directory, name or graph.name)
    if dumper is not None:
        dumper.dump(graph, "captured")
    skip = () if jit_options.fuses(jit_level) else ("fuse_elementwise",)
    entries = _registry.load().in_order("pass")
    for stage in ("optimize", "schedule"):
        for entry in entries:
            if entry.info.get("stage", "optimize") != stage or entry.name in skip:
                continue
            graph = entry.value(graph)
            if dumper is not None:
                dumper.dump(graph, f"after_{entry.name}")
    return graph


def _converted(fn):
    """``fn`` with its tensor control flow rewritten (the AST capture mode).

    ``jit(grad(f))``: a differentiating wrapper has no source worth converting; ``f`` is
    converted and the same wrapper rebuilt around it (``ms_autodiff.api.differentiating``).
    ``jit(grad(cell))`` keeps the wrapper: a Cell converts its ``construct`` when it is
    called inside an AST capture.
    """
    inner = getattr(fn, "__ms_function__", None)
    if inner is not None and type(fn) is types.FunctionType:
        if not isinstance(inner, (types.FunctionType, types.MethodType)):
            return fn
        return fn.__ms_rebuild__(_converted(inner))
    try:
        from ms_graph.convert import convert
    except ModuleNotFoundError as e:
        if e.name not in ("ms_graph.convert",):
            raise
        raise ImportError("jit: capture_mode='ast' needs ms_graph.convert, which is not "
                          "installed; use capture_mode='trace'") from None
    return convert(fn)


def _capturing(capture_mode: str):
    """AST mode converts what the captured function calls, too (``runtime.call``)."""
    if capture_mode == "ast":
        from ms_graph.convert.runtime import ast_capture

        return ast_capture()
    return contextlib.nullcontext()


def _tree_key(tree):
    if type(tree) is int:
        return tree
    if type(tree) in (tuple, list):
        return (type(tree).__name__,) + tuple(_tree_key(x) for x in tree)
    if type(tree) is dict:
        return ("dict",) + tuple((k, _tree_key(v)) for k, v in tree.items())
    return ("static", static_key(tree.value))


def _owner_state(owner):
    """The Python state of the object a method is compiled for that its code may read,
    so that changing it selects another graph instead of rerunning one that captured the
    old values: ``owner.graph_state()`` where defined (a Cell: the attributes and flags
    of its whole tree, cached), else the owner's plain attributes (numbers, strings,
    None and tuples of them)."""
    if owner is None:
        return None
    state = getattr(owner, "graph_state", None)
    if state is not None:
        return state()
    return tuple(sorted((k, v) for k, v in getattr(owner, "__dict__", {}).items()
                        if _plain(v)))


def _reached_cells(fn) -> tuple:
    """Where a function reads objects with ``graph_state`` (Cells) by name: the indices
    of its closure cells and the names of its module globals holding one now."""
    if type(fn) is not types.FunctionType:
        return (), ()
    cells = []
    for i, c in enumerate(fn.__closure__ or ()):
        try:
            if hasattr(type(c.cell_contents), "graph_state"):
                cells.append(i)
        except ValueError:  # an empty closure cell
            continue
    g = fn.__globals__
    names = tuple(n for n in fn.__code__.co_names if hasattr(type(g.get(n)), "graph_state"))
    return tuple(cells), names


def _reached_state(fn, reached):
    """The ``graph_state`` of the Cells a function reads by name (``_reached_cells``):
    ``@jit def step(x): return net(x)`` recompiles when ``net``'s flags change."""
    cells, names = reached
    if not cells and not names:
        return None
    out = [_owner_state(fn.__closure__[i].cell_contents) for i in cells]
    g = fn.__globals__
    out.extend(_owner_state(g.get(n)) for n in names)
    return tuple(out)


def _plain(v) -> bool:
    if type(v) in (bool, int, float, str, type(None)):
        return True
    return type(v) is tuple and all(_plain(x) for x in v)


class _Entry:
    __slots__ = ("executable", "params")

    def __init__(self, executable, params):
        self.executable = executable
        self.params = params  # held so that the ids in the cache key stay unique


class JitFunction:
    """A function compiled per input signature (see the module doc).

    Attributes:
        hits, misses: how many calls ran a cached graph / captured a new one.
    """

    def __init__(self, fn, capture_mode: str = "ast", jit_level: str | None = None):
        if capture_mode not in CAPTURE_MODES:
            raise ValueError(f"jit: capture_mode must be one of {CAPTURE_MODES}, got "
                             f"{capture_mode!r}")
        if not callable(fn):
            raise TypeError(f"jit: expected a function or a Cell, got {type(fn).__name__}")
        self.fn = fn
        self.capture_mode = capture_mode
        self._optimize = functools.partial(optimize, jit_level=jit_level)
        self.hits = 0
        self.misses = 0
        self._cache = GraphCache(name=getattr(fn, "__qualname__", "function"))  # LRU, locked
        self._target = None  # the function actually captured (converted once)
        # A plain function without a closure reaches no Cell but through its arguments.
        self._no_closure = type(fn) is types.FunctionType and fn.__closure__ is None
        self._reached = None  # where fn reads Cells by name (``_reached_cells``), at 1st call
        functools.update_wrapper(self, fn, updated=())

    def __get__(self, obj, objtype=None):
        """``@jit`` on a method (a Cell's ``construct``): bind, sharing the cache."""
        if obj is None:
            return self
        return functools.partial(self._call, obj)

    def __call__(self, *args, **kwargs):
        return self._call(None, *args, **kwargs)

    def _call(self, owner, *args, **kwargs):
        if current_tracer() is not None:  # inside another capture: part of its graph
            run = self._capture_target(owner)
            with _capturing(self.capture_mode):
                return run(*args, **kwargs)
        plain = not kwargs  # the common case: Tensors only, no Cells to look into
        if plain:
            for a in args:
                if type(a) is not Tensor:
                    plain = False
                    break
        if plain:
            leaves, structure = args, len(args)
            params = [] if owner is None and self._no_closure else \
                watched_parameters(self.fn if owner is None else owner, args)
        else:
            leaves = []
            structure = _tree_key(flatten((args, kwargs), leaves))
            params = watched_parameters(self.fn if owner is None else owner, args)
        first: dict[int, int] = {}
        sig = tuple([(a.shape, a.dtype, first.setdefault(id(a), i))
                     for i, a in enumerate(map(array_of, leaves))])
        if owner is not None:
            state = _owner_state(owner)
        else:
            if self._reached is None:
                self._reached = _reached_cells(self.fn)
            state = _reached_state(self.fn, self._reached)
            if not plain:
                state = (state, *[_owner_state(a) for a in args
                                  if hasattr(type(a), "graph_state")])
        # the device target picks kernels (an emulating backend's, ms_ops.planning)
        key = (id(owner), structure, sig, tuple([id(p) for p in params]), state,
               get_context("device_target"))
        tapes = active_tapes()
        if tapes and any(t.recording for t in tapes):
            tree = flatten((args, kwargs), [])
            return self._differentiated(owner, key, list(leaves), tree, params)
        entry = self._cache.get(key)
        if entry is None:
            with self._cache.lock:  # one thread captures; the others then run its graph
                entry = self._cache.get(key)
                if entry is None:
                    self.misses += 1
                    run = self._capture_target(owner)
                    with _capturing(self.capture_mode):
                        graph, result = trace_and_run(run, args, kwargs,
                                                      name=self.__qualname__,
                                                      check_params=params)
                    self._cache.put(key, _Entry(Executable(self._optimize(graph)),
                                                params + [owner]))
                    return result
        self.hits += 1
        return entry.executable(*leaves)

    def _differentiated(self, owner, key, leaves, tree, params):
        """Under a recording tape: the forward graph now, the backward graph when the
        tape's backward pass reaches this call (``ms_graph.jit_grad``)."""
        mask, watched = jit_grad.watch_set(leaves)
        key = key + (mask, tuple(id(p) for p in watched))
        entry = self._cache.get(key)
        captured = None
        if entry is None:
            with self._cache.lock:  # as in ``_call``: one capture per signature
                entry = self._cache.get(key)
                if entry is None:
                    self.misses += 1
                    run = self._capture_target(owner)
                    with _capturing(self.capture_mode):
                        captured = jit_grad.capture(run, leaves, tree, mask, watched,
                                                    self.__qualname__, self._optimize)
                    self._cache.put(key, _Entry(captured[0], params + watched + [owner]))
        if captured is not None:
            dg, result, residuals = captured
        else:
            self.hits += 1
            dg = entry.executable
            got = dg.forward.run_arrays([array_of(t) for t in leaves])
            n = dg.n_outputs
            result = unflatten(dg.out_tree, [wrap(a) for a in got[:n]])
            residuals = got[n:]
        fn = self.fn if owner is None else functools.partial(self.fn, owner)
        return jit_grad.differentiated_call(dg, fn, leaves, tree, result, residuals)

    def _capture_target(self, owner=None):
        """The function to capture (converted once in AST mode), bound to ``owner``."""
        if self._target is None:
            fn = self.fn
            if self.capture_mode == "ast":
                fn = _converted(fn)
            self._target = fn
        return self._target if owner is None else functools.partial(self._target, owner)

    def graphs(self) -> list:
        """The graphs compiled so far (for a differentiated call, its forward graph),
        least recently run first: what tools such as summaries show of a network."""
        return [getattr(e.executable, "forward", e.executable).graph
                for e in self._cache.values()]

    def __repr__(self) -> str:
        return f"<jit {self.__qualname__} ({len(self._cache)} graphs)>"


def jit(fn=None, *, capture_mode: str = "ast", **options):
    """Compile ``fn`` (decorator: ``@jit``, ``@jit(capture_mode="trace")``; functional:
    ``jit(fn)``; on a Cell: ``jit(net)`` or ``@jit`` on its ``construct``). MindSpore's
    other options (``jit_level``, ``dynamic``, ...) work as ``ms_graph.jit_options``
    says, or raise ValueError naming the option."""
    opts = jit_options.parse(capture_mode, **options)

    def make(f):
        if hasattr(f, "construct") and hasattr(f, "parameters_and_names"):
            compiled = JitFunction(type(f).construct, opts.capture_mode, opts.jit_level)
            compiled = functools.partial(compiled._call, f)
        else:
            compiled = JitFunction(f, opts.capture_mode, opts.jit_level)
        return jit_options.with_signature(compiled, opts.input_signature)

    return make if fn is None else make(fn)


class Compiled:
    """The graph of one call of a function, ready to run on arguments of the same kind."""

    def __init__(self, executable: Executable, result):
        self.executable = executable
        self.graph = executable.graph
        self.result = result  # the capturing call's own result

    def __call__(self, *args, **kwargs):
        leaves: list = []
        flatten((args, kwargs), leaves)
        if len(leaves) != len(self.graph.inputs):
            raise TypeError(f"{self.graph.name}: compiled for {len(self.graph.inputs)} tensor "
                            f"arguments, got {len(leaves)}")
        for i, (t, v) in enumerate(zip(leaves, self.graph.inputs)):
            a = array_of(t)
            if a.shape != v.spec.shape or a.dtype != v.spec.dtype.np:
                raise TypeError(f"{self.graph.name}: tensor argument {i} has shape "
                                f"{a.shape} {a.dtype}, but the graph was compiled "
                                f"for {v.spec.shape} {v.spec.dtype}")
        return self.executable(*leaves)


def compile(fn, *args, capture_mode: str = "trace", **kwargs) -> Compiled:
    """Capture and optimize one call ``fn(*args, **kwargs)``; the call really runs once
    (``Compiled.result`` is its result)."""
    if capture_mode == "ast":
        fn = _converted(fn)
    elif capture_mode != "trace":
        raise ValueError(f"compile: capture_mode must be one of {CAPTURE_MODES}, got "
                         f"{capture_mode!r}")
    with _capturing(capture_mode):
        graph, result = trace_and_run(fn, args, kwargs)
    return Compiled(Executable(optimize(graph)), result)

