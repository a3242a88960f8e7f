"""The tape: eager operators recorded as a graph, and the backward pass that replays
their gradient rules.

A tensor a tape follows carries, in its ``_node`` slot, a dict from tape to the place
that produced it (a ``Leaf``, or a node and an output index). Nested tapes (the
gradient of a gradient) each keep their own entry, so one eager operator can be
recorded by several tapes at once. While a tape runs its own backward pass it stops
recording; the operators its gradient rules run are recorded by the tapes outside it,
which is what makes higher-order gradients work.

Tapes belong to the thread that opened them (``active_tapes`` and the recorder are per
thread, ``ms_autodiff.recording``), so several threads can differentiate at once, also
through the same Parameters.
"""

from __future__ import annotations

import threading

from ms_autodiff.ready import gradient_ready_callback
from ms_autodiff.recording import get_recorder, set_recorder, thread_state
from ms_ops import needing
from ms_ops.defs import arithmetic, array_create, complex_ops
from ms_tensor import registry
from ms_tensor.tensor import Tensor, array_of, node_of, set_node, wrap

__all__ = ["Tape", "Leaf", "Node", "active_tapes", "pause_recording"]

active_tapes = thread_state(list)
active_tapes.__doc__ = "The calling thread's open tapes, innermost last."
# Guards the ``_node`` dicts of tensors several threads' tapes may follow at once (a
# shared Parameter): creating or emptying one must not lose another tape's entry.
_tag_lock = threading.Lock()


def _chain(own, below):
    """The recorder a tape installs: its own, then the one it found (an enclosing tape,
    ms-graph's tracer or one of its branch sub-traces), so that the recorders in place
    before it keep seeing every operator, its backward pass's included."""
    if below is None:
        return own  # the common case: one tape, nothing else recording

    def chained(op, values, attrs, out):
        own(op, values, attrs, out)
        below(op, values, attrs, out)

    return chained


class Leaf:
    """A tensor the tape differentiates with respect to."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor):
        self.tensor = tensor


class Node:
    """One recorded operator call; ``parents[i]`` is where input ``i`` came from."""

    __slots__ = ("op", "inputs", "arrays", "attrs", "outputs", "parents")

    def __init__(self, op, inputs, attrs, outputs, parents):
        self.op = op
        self.inputs = inputs
        # The arrays the inputs held when recorded: ``x[i] = v`` later gives ``x`` a new
        # array, and the gradient rule must still see the old one.
        self.arrays = tuple([array_of(v) if isinstance(v, Tensor) else None for v in inputs])
        self.attrs = attrs
        self.outputs = outputs
        self.parents = parents


class Tape:
    """Records operators on tensors that depend on watched ones, until closed."""

    def __init__(self, retain: bool = False):
        self.nodes: list[Node] = []
        self.tagged: list[Tensor] = []
        self.recording = True
        self.retain = retain  # keep the nodes after a backward pass (vjp functions)
        self._below = None  # the recorder this tape found when entered

    # -- recording -----------------------------------------------------------------
    def __enter__(self) -> Tape:
        self._below = set_recorder(_chain(self.record, get_recorder()))
        active_tapes().append(self)
        return self

    def __exit__(self, *exc) -> None:
        active_tapes().remove(self)
        set_recorder(self._below)
        self._below = None
        self.recording = False
        with _tag_lock:
            for t in self.tagged:  # forget this tape on every tensor it followed
                n = node_of(t)
                if n is not None:
                    n.pop(self, None)
                    if not n:
                        set_node(t, None)
        self.tagged = []

    def _tag(self, t: Tensor, entry) -> None:
        with _tag_lock:
            n = node_of(t)
            if n is None:
                set_node(t, {self: entry})
            else:
                n[self] = entry
        self.tagged.append(t)

    def watch(self, t: Tensor) -> Leaf:
        leaf = Leaf(t)
        self._tag(t, (leaf, 0))
        return leaf

    def entry(self, t):
        n = node_of(t) if isinstance(t, Tensor) else None
        return None if n is None else n.get(self)

    def record(self, op, values, attrs, out) -> None:
        if not self.recording:
            return
        parents = None
        i = 0
        for v in values:
            if isinstance(v, Tensor):
                n = node_of(v)
                if n is not None:
                    e = n.get(self)
                    if e is not None:
                        if parents is None:
                            parents = [None] * len(values)
                        parents[i] = e
            i += 1
        if parents is None and getattr(op, "stateful", False) and \
                getattr(op, "talks_back", False):
            # A message (Send/Receive): recorded even when nothing watched flows in, so
            # that its gradient rule, which exchanges the gradient with the peer rank,
            # runs in every backward pass, as the peer's runs.
            parents = [None] * len(values)
        if parents is None or not op.differentiable:
            # Constant for this tape; an in-place update also cuts what it overwrote.
            for o in (out if type(out) is tuple else (out,)):
                n = node_of(o)
                if n is not None:
                    n.pop(self, None)
            return
        node = Node(op, values, attrs, out, parents)
        self.nodes.append(node)
        if type(out) is tuple:
            for k, o in enumerate(out):
                self._tag(o, (node, k))
        else:  # the common case, inlined: this runs once per recorded operator
            n = node_of(out)
            if n is None:
                set_node(out, {self: (node, 0)})
            else:
                n[self] = (node, 0)
            self.tagged.append(out)

    def record_custom(self, op, values, out) -> None:
        """Record a call whose inside was not recorded (a user-defined gradient)."""
        self.record(op, values, {}, out)

    # -- the backward pass ------------------------------------------------------------
    def backward(self, roots, sens, leaves) -> list:
        """Gradients of ``sum(root * sens)`` with respect to each leaf (None if unreached).

        ``roots`` are tape entries of the outputs (or None where an output does not
        depend on any leaf), ``sens`` their cotangents.
        """
        grads: dict = {}
        for entry, s in zip(roots, sens):
            if entry is not None:
                _accumulate(grads, entry, s)
        was_recording, self.recording = self.recording, False
        ready = gradient_ready_callback()
        finished = _last_uses(self.nodes, leaves) if ready is not None else None
        try:
            nodes = self.nodes
            for idx in range(len(nodes) - 1, -1, -1):
                if finished and idx + 1 in finished:  # node idx + 1 was a leaf's last use
                    _report(ready, finished.pop(idx + 1), grads)
                node = nodes[idx]
                outs = node.outputs if type(node.outputs) is tuple else (node.outputs,)
                if len(outs) == 1:  # the common case, without the generic loops
                    d = grads.pop((id(node), 0), None)
                    if d is None:
                        op = node.op
                        if not (getattr(op, "stateful", False) and
                                getattr(op, "talks_back", False)):
                            continue
                        d = array_create.ZerosLike(node.outputs)  # the peer waits for it
                    douts = [d]
                else:
                    douts = [grads.pop((id(node), k), None) for k in range(len(outs))]
                    if all(d is None for d in douts):
                        continue
                if not self.retain:
                    nodes[idx] = None  # free the forward values as soon as possible
                _run_bprop(node, outs, douts, grads)
            if finished:
                _report(ready, [leaf for group in finished.values() for leaf in group], grads)
        finally:
            self.recording = was_recording
        return [grads.get((id(leaf), 0)) for leaf in leaves]


def _last_uses(nodes, leaves) -> dict:
    """``{node index: [leaves]}``: the node after whose gradient rule each leaf's gradient
    is complete (the earliest node reading it; -1 for leaves no node reads)."""
    wanted = {id(leaf): leaf for leaf in leaves}
    last: dict = {}
    for idx, node in enumerate(nodes):
        if node is None:  # freed by an earlier backward pass
            continue
        for parent in node.parents:
            if parent is not None and id(parent[0]) in wanted:
                last.setdefault(id(parent[0]), idx)
    out: dict = {}
    for key, leaf in wanted.items():
        out.setdefault(last.get(key, -1), []).append(leaf)
    return out


def _report(ready, leaves, grads) -> None:
    for leaf in leaves:
        if isinstance(leaf, Leaf):
            ready(leaf.tensor, grads.get((id(leaf), 0)))


def _accumulate(grads: dict, entry, g) -> None:
    key = (id(entry[0]), entry[1])
    old = grads.get(key)
    if old is None:
        grads[key] = g
    elif type(old) is Tensor and type(g) is Tensor:
        grads[key] = old + g  # Add through Tensor.__add__'s fast path: same op, same record
    else:
        grads[key] = arithmetic.Add(old, g)


def _inputs_as_recorded(node) -> list:
    """The node's inputs, with the array each held when recorded (see ``Node.arrays``)."""
    out = []
    for v, a in zip(node.inputs, node.arrays):
        if a is not None and array_of(v) is not a:
            v = wrap(a)
        out.append(v)
    return out


def _bprop_of(op):
    """The gradient rule of ``op``, cached here until the registry reloads."""
    custom = getattr(op, "custom_bprop", None)
    if custom is not None:
        return custom
    gen = registry.generation()
    cached = _bprops.get(op)
    if cached is not None and cached[0] == gen:
        return cached[1]
    bprop = registry.load().bprop(op)
    if bprop is None:
        raise RuntimeError(f"{op.name}: no gradient rule is registered, but it is marked "
                           "differentiable")
    _bprops[op] = (registry.generation(), bprop)
    return bprop


_bprops: dict = {}  # OpDef -> (registry generation, its gradient rule)


def _run_bprop(node, outs, douts, grads) -> None:
    op = node.op
    bprop = _bprop_of(op)
    if len(outs) == 1:
        dout = douts[0]
        out = node.outputs
    else:
        dout = tuple(array_create.ZerosLike(o) if d is None else d for o, d in zip(outs, douts))
        out = node.outputs
    inputs = _inputs_as_recorded(node)
    with needing([p is not None for p in node.parents]):
        result = bprop(*inputs, out=out, dout=dout, **node.attrs)
    if not isinstance(result, (tuple, list)) or len(result) != len(inputs):
        raise RuntimeError(f"{op.name}: gradient rule returned {_describe(result)} for "
                           f"{len(inputs)} inputs; it must return one gradient per input")
    for parent, g, v in zip(node.parents, result, inputs):
        if parent is None or g is None:
            continue
        if type(g) is not Tensor and not isinstance(g, Tensor):
            raise RuntimeError(f"{op.name}: gradient rule returned {type(g).__name__} for an "
                               "input; expected a Tensor or None")
        if array_of(g).shape != array_of(v).shape:
            raise RuntimeError(f"{op.name}: gradient rule returned shape {g.shape} for an "
                               f"input of shape {v.shape}")
        if g.dtype.kind == "c" and v.dtype.kind != "c":
            g = complex_ops.Real(g)  # a real input's gradient is real (as in PyTorch)
        _accumulate(grads, parent, g)


def _describe(result) -> str:
    if isinstance(result, (tuple, list)):
        return f"{len(result)} values"
    return type(result).__name__


class pause_recording:
    """Stop every active tape from recording inside the block (custom gradients)."""

    def __enter__(self):
        self._paused = [t for t in active_tapes() if t.recording]
        for t in self._paused:
            t.recording = False
        return self

    def __exit__(self, *exc):
        for t in self._paused:
            t.recording = True
