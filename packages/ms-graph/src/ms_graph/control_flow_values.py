"""The values of the paths through captured control flow: flattening nested operands,
fresh tensors per branch, and making two branches' (or a loop's) results agree.
"""

from __future__ import annotations

import numpy as np

from ms_graph.control_flow_trace import _SCALARS, Undefined, _at, _loc, _spec
from ms_graph.convert.errors import GraphSyntaxError
from ms_tensor.tensor import Tensor, array_of, wrap


def _flatten(x, leaves: list):
    if type(x) in (tuple, list):
        return (type(x), [_flatten(e, leaves) for e in x])
    if type(x) is dict:
        return (dict, [(k, _flatten(v, leaves)) for k, v in x.items()])
    leaves.append(x)
    return None


def _unflatten(tree, it):
    if tree is None:
        return next(it)
    kind, items = tree
    if kind is dict:
        return {k: _unflatten(t, it) for k, t in items}
    return kind(_unflatten(t, it) for t in items)


def _rebuild(tree, leaves):
    return _unflatten(tree, iter(leaves))


def _fresh(leaves):
    """New Tensor objects over the same arrays: a branch that gives ``x`` a new array
    (``x[i] = v``) must not change what the other branch (or the caller) sees."""
    return [wrap(array_of(x)) if isinstance(x, Tensor) else x for x in leaves]


def _copies(leaves):
    """Result tensors that share no array with any other tensor: the tracer also finds
    Values by array, and a branch that returns its operand unchanged must not make the
    operand's array stand for the node's output."""
    return [wrap(array_of(x).copy()) if isinstance(x, Tensor) else x for x in leaves]


def _leaf_names(tree, names, n):
    """A readable name for each leaf: the variable it belongs to when names are given."""
    if names is None or tree is None or tree[0] not in (tuple, list) or \
            len(tree[1]) != len(names):
        return [f"output {i}" for i in range(n)]
    out = []
    for name, sub in zip(names, tree[1]):
        k = _count(sub)
        out.extend([f"variable {name!r}"] if k == 1 else
                   [f"variable {name!r} (element {j})" for j in range(k)])
    return out


def _count(tree) -> int:
    if tree is None:
        return 1
    kind, items = tree
    return sum(_count(t if kind is not dict else t[1]) for t in items)


def _same_static(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, (Undefined, np.ndarray)):
        return False
    try:
        return bool(a == b)
    except Exception:  # objects whose == is not a plain truth value
        return False


def _as_tensor(x, dtype=None) -> Tensor:
    """A Python scalar as a Tensor (of ``dtype`` when given, else MindSpore's default)."""
    if dtype is not None:
        return wrap(np.asarray(x, dtype=dtype.np))
    if isinstance(x, bool):
        return wrap(np.asarray(x, dtype=np.bool_))
    if isinstance(x, int):
        return wrap(np.asarray(x, dtype=np.int64))
    return wrap(np.asarray(x, dtype=np.float32))


def _merge(a_leaves, b_leaves, names, construct, where):
    """Make two branches' results agree: tensors with equal specs at the same places.

    Python scalars that differ between branches become tensors (``found = True`` in one
    branch and ``False`` in the other is a common flag); a scalar facing a tensor takes
    the tensor's dtype. Other Python values must be equal in both branches.
    """
    for i, (a, b) in enumerate(zip(a_leaves, b_leaves)):
        ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
        if ta and not tb and type(b) in _SCALARS:
            b_leaves[i] = b = _as_tensor(b, a.dtype)
        elif tb and not ta and type(a) in _SCALARS:
            a_leaves[i] = a = _as_tensor(a, b.dtype)
        elif not ta and not tb and type(a) in _SCALARS and type(b) in _SCALARS \
                and not _same_static(a, b):
            kind = bool if type(a) is type(b) is bool else \
                float if float in (type(a), type(b)) else int
            a_leaves[i] = a = _as_tensor(kind(a))
            b_leaves[i] = b = _as_tensor(kind(b))
        ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
        if ta and tb:
            if _spec(a) != _spec(b):
                raise GraphSyntaxError(
                    f"{names[i]} is a Tensor of shape {a.shape} {a.dtype} on one path and "
                    f"{b.shape} {b.dtype} on the other of the tensor-dependent {construct}"
                    f"{_at(where)}; both paths must give the same shape and dtype (cast or "
                    "reshape one of them, or use a Python condition so the branch is chosen "
                    "at compile time)", *_loc(where))
        elif isinstance(a, Undefined) or isinstance(b, Undefined):
            # An error only if the variable is read before it is assigned again (fuzzer).
            name = (a if isinstance(a, Undefined) else b).name
            a_leaves[i] = b_leaves[i] = Undefined(name, (
                f"variable {name!r} is assigned on only one path of the tensor-dependent "
                f"{construct}{_at(where)} and used after it; assign it before the "
                f"{construct.split()[0]} (for example {name} = zeros_like(...)) so that "
                "it has a value on every path", *_loc(where)))
        elif ta != tb or not _same_static(a, b):
            raise GraphSyntaxError(
                f"{names[i]} is {_describe(a)} on one path and {_describe(b)} on the other "
                f"of the tensor-dependent {construct}{_at(where)}; a value that depends on a "
                "Tensor condition must be a Tensor (or a number) on every path",
                *_loc(where))


def _describe(x) -> str:
    if isinstance(x, Tensor):
        return f"a Tensor {x.shape} {x.dtype}"
    return f"{type(x).__name__} {x!r}"


def _truth(x) -> bool:
    return bool(x)


def _check_pred(pred: Tensor, construct: str, where) -> None:
    if pred.size != 1:
        raise GraphSyntaxError(
            f"the condition of a {construct}{_at(where)} is a Tensor of shape {pred.shape}; "
            "it must have one element (use .any() or .all())", *_loc(where))


def _tree_text(tree) -> str:
    if tree is None:
        return "value"
    kind, items = tree
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {_tree_text(t)}" for k, t in items) + "}"
    return f"{kind.__name__} of {len(items)}"
