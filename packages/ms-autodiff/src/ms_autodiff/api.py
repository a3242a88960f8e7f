"""``grad`` and ``value_and_grad`` with MindSpore 2.x's rules for positions, weights,
auxiliary outputs and what is returned in each combination."""

from __future__ import annotations

from ms_autodiff.tape import Tape
from ms_ops.defs import array, array_create
from ms_tensor import Parameter
from ms_tensor.tensor import Tensor, array_of, node_of, wrap

__all__ = ["grad", "value_and_grad", "differentiate", "gradient_like"]


def _positions(grad_position, n_args: int, who: str):
    if grad_position is None:
        return ()
    single = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    positions = (grad_position,) if single else grad_position
    if not isinstance(positions, (tuple, list)):
        positions = (positions,)  # reported as a bad type below
    for p in positions:
        if not isinstance(p, int) or isinstance(p, bool):
            raise TypeError(f"{who}: grad_position must be an int, a tuple of ints or None, "
                            f"got {grad_position!r}")
        if not -n_args <= p < n_args:
            raise ValueError(f"{who}: grad_position {p} is out of range for a call with "
                             f"{n_args} positional argument(s)")
    return tuple(p % n_args for p in positions)


def _weights(weights, who: str):
    """``(list of Parameters, whether one Parameter was given)``."""
    if weights is None:
        return [], False
    if isinstance(weights, Parameter):
        return [weights], True
    if isinstance(weights, Tensor):
        return [weights], True
    try:
        ws = list(weights)
    except TypeError:
        raise TypeError(f"{who}: weights must be a Parameter, a list or tuple of Parameters, "
                        f"or a Cell's trainable_params(), got {type(weights).__name__}") from None
    for w in ws:
        if not isinstance(w, Tensor):
            raise TypeError(f"{who}: every weight must be a Parameter, got {type(w).__name__}")
    return ws, False


def _fresh_input(t: Tensor) -> Tensor:
    """A new tensor object for a differentiated argument: passing the same tensor at two
    positions still gives each position its own gradient. It keeps the entries of any
    outer tape (a gradient of a gradient), tagged through each tape so that the tape
    forgets it on exit (an entry left behind would be a reference cycle through the tape)."""
    w = wrap(array_of(t))
    if node_of(t) is not None:
        for tape, entry in node_of(t).items():
            tape._tag(w, entry)
    return w


def _outputs(out, has_aux: bool, who: str):
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            raise ValueError(f"{who}: with has_aux=True the function must return a tuple "
                             f"(output, aux, ...), got {type(out).__name__}")
        main, aux = out[0], tuple(out[1:])
    else:
        main, aux = out, ()
    outs = main if isinstance(main, tuple) else (main,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{who}: the differentiated function must return Tensors, got "
                            f"{type(o).__name__}")
    return outs, aux


def differentiate(fn, args, positions, weights, has_aux=False, sens=None, who="grad"):
    """Run ``fn(*args)`` on a tape and differentiate its output.

    Returns ``(value, position_grads, weight_grads, aux)``; a gradient is zeros where
    the output does not depend on the input, and has the input's dtype (MindSpore casts
    gradients of integer inputs, too).
    """
    inputs = list(args)
    with Tape() as tape:
        leaves = []
        for p in positions:
            a = args[p]
            if not isinstance(a, Tensor):
                raise TypeError(f"{who}: argument {p} is differentiated but is a "
                                f"{type(a).__name__}, not a Tensor")
            inputs[p] = _fresh_input(a)
            leaves.append(tape.watch(inputs[p]))
        leaves += [tape.watch(w) for w in weights]
        value = fn(*inputs)
        outs, aux = _outputs(value, has_aux, who)
        roots = [tape.entry(o) for o in outs]
        if sens is None:
            cotangents = [array_create.OnesLike(o) for o in outs]
        else:
            cotangents = list(sens) if isinstance(sens, (tuple, list)) else [sens]
            if len(cotangents) != len(outs):
                raise ValueError(f"{who}: got {len(cotangents)} sens values for "
                                 f"{len(outs)} outputs")
        raw = tape.backward(roots, cotangents, leaves)
    grads = [gradient_like(g, leaf.tensor) for g, leaf in zip(raw, leaves)]
    return value, grads[: len(positions)], grads[len(positions):], aux


def gradient_like(g, like: Tensor) -> Tensor:
    """The gradient for ``like`` from a tape's raw result ``g``: zeros shaped as ``like``
    where no gradient reached it (None), else ``g`` in ``like``'s dtype."""
    if g is None:
        return array_create.ZerosLike(like)
    if g.dtype != like.dtype:
        return array.Cast(g, like.dtype)
    return g


def _pack(pos_grads, weight_grads, grad_position, positions, weights_given, single_weight):
    single_pos = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    pos = (pos_grads[0] if single_pos else tuple(pos_grads)) if positions else None
    ws = (weight_grads[0] if single_weight else tuple(weight_grads)) if weights_given else None
    if positions and weights_given:
        return pos, ws
    return pos if positions else ws


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """A function returning ``(fn(*args), gradients)``, as ``mindspore.value_and_grad``.

    Args:
        fn: the function to differentiate; it returns a Tensor or a tuple of Tensors (all
            of which are differentiated, each with a ones sensitivity).
        grad_position: index or tuple of indices of the arguments to differentiate, or
            None for weights only.
        weights: a Parameter, a list/tuple of them, or a Cell's ``trainable_params()``.
        has_aux: ``fn`` returns ``(output, aux, ...)``; only ``output`` is differentiated.
        return_ids: pair every gradient with its position index or parameter name.
    Returns:
        The gradients of the positions (a Tensor for an int position, a tuple for a
        tuple), of the weights (a tuple, or a Tensor for one Parameter), or both as a pair.

    >>> value_and_grad(lambda x: (x * x).sum())(Tensor([1.0, 2.0]))[1]
    Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
    """
    who = "value_and_grad"
    if grad_position is None and weights is None:
        raise ValueError(f"{who}: grad_position and weights cannot both be None")

    def wrapper(*args):
        positions = _positions(grad_position, len(args), who)
        ws, single = _weights(weights, who)
        value, pos_g, w_g, _ = differentiate(fn, args, positions, ws, has_aux, who=who)
        if return_ids:
            pos_g = [(p, g) for p, g in zip(positions, pos_g)]
            w_g = [(w.name if isinstance(w, Parameter) else i, g)
                   for i, (w, g) in enumerate(zip(ws, w_g))]
        return value, _pack(pos_g, w_g, grad_position, positions, weights is not None, single)

    wrapper.__name__ = f"value_and_grad_{getattr(fn, '__name__', 'fn')}"
    return differentiating(wrapper, fn, lambda new: value_and_grad(
        new, grad_position, weights, has_aux, return_ids))


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """A function returning the gradients of ``fn``, as ``mindspore.grad``.

    Same arguments as ``value_and_grad``. With ``has_aux=True`` it returns
    ``(gradients, aux)``, where ``aux`` is the tuple of auxiliary outputs.

    >>> grad(lambda x, y: (x * y).sum())(Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  4.00000000e+00])
    """
    vg = value_and_grad(fn, grad_position, weights, has_aux, return_ids)

    def wrapper(*args):
        value, grads = vg(*args)
        if has_aux:
            return grads, tuple(value[1:])
        return grads

    wrapper.__name__ = f"grad_{getattr(fn, '__name__', 'fn')}"
    return differentiating(wrapper, fn, lambda new: grad(
        new, grad_position, weights, has_aux, return_ids))


def differentiating(wrapper, fn, rebuild):
    """Mark ``wrapper`` as differentiating ``fn``: ``__ms_function__`` is ``fn`` and
    ``__ms_rebuild__(new_fn)`` makes the same wrapper around another function. A compiler
    (ms-graph's AST capture) uses it to capture the control flow of ``fn`` itself when the
    wrapper was made outside the compiled code."""
    wrapper.__ms_function__ = fn
    wrapper.__ms_rebuild__ = rebuild
    return wrapper
