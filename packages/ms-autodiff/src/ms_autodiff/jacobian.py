"""``jacrev`` and ``jacfwd`` (``mindspore.jacrev``/``jacfwd``): the full Jacobian.

Reverse mode pulls back one unit cotangent per output element through a single recorded
tape (``vjp``); forward mode pushes one unit tangent per input element (``jvp``). The
result for output shape O and input shape I has shape O + I, as in MindSpore and JAX.
"""

from __future__ import annotations

import numpy as np

from ms_autodiff.vjp import jvp, vjp
from ms_ops.defs import array
from ms_ops.defs.array_join import stack
from ms_tensor.tensor import Tensor

__all__ = ["jacrev", "jacfwd"]


def _positions(grad_position, n):
    single = isinstance(grad_position, int)
    positions = (grad_position,) if single else tuple(grad_position)
    for p in positions:
        if not -n <= p < n:
            raise ValueError(f"grad_position {p} is out of range for {n} inputs")
    return [p % n for p in positions], single


def _aux(aux: tuple):
    """The auxiliary output as the function returned it (one value, or the tuple)."""
    return aux[0] if len(aux) == 1 else aux


def _units(shape, dtype):
    n = int(np.prod(shape))
    for k in range(n):
        e = np.zeros(n, dtype.np)
        e[k] = 1
        yield Tensor(e.reshape(shape))


def jacrev(fn, grad_position=0, has_aux=False):
    """A function returning the Jacobian of ``fn`` w.r.t. the inputs at ``grad_position``,
    by reverse mode (one pullback per output element)."""
    def jacobian(*inputs):
        positions, single = _positions(grad_position, len(inputs))

        def part(*chosen):
            full = list(inputs)
            for p, c in zip(positions, chosen):
                full[p] = c
            return fn(*full)

        result = vjp(part, *[inputs[p] for p in positions], has_aux=has_aux)
        value, pull = result[0], result[1]
        outs = value if isinstance(value, tuple) else (value,)
        jacs = []
        for k, out in enumerate(outs):
            rows = []
            for unit in _units(out.shape, out.dtype):
                cot = tuple(unit if j == k else array.Cast(Tensor(np.zeros(o.shape)), o.dtype)
                            for j, o in enumerate(outs))
                rows.append(pull(*cot))
            per_input = []
            for i, p in enumerate(positions):
                x = inputs[p]
                g = stack(tuple(r[i] for r in rows), 0)
                per_input.append(array.Reshape(g, tuple(out.shape) + tuple(x.shape)))
            jacs.append(per_input[0] if single else tuple(per_input))
        jac = tuple(jacs) if isinstance(value, tuple) else jacs[0]
        return (jac, _aux(result[2])) if has_aux else jac

    return jacobian


def jacfwd(fn, grad_position=0, has_aux=False):
    """A function returning the Jacobian of ``fn`` w.r.t. the inputs at ``grad_position``,
    by forward mode (one tangent per input element)."""
    def jacobian(*inputs):
        positions, single = _positions(grad_position, len(inputs))
        per_input, value, aux = [], None, None
        for p in positions:
            x = inputs[p]

            def along(v, p=p):
                full = list(inputs)
                full[p] = v
                return fn(*full)

            columns = []
            for unit in _units(x.shape, x.dtype):
                result = jvp(along, x, unit, has_aux=has_aux)
                value, tangent = result[0], result[1]
                aux = _aux(result[2]) if has_aux else None
                columns.append(tangent if isinstance(tangent, tuple) else (tangent,))
            outs = value if isinstance(value, tuple) else (value,)
            jac = []
            for k, out in enumerate(outs):
                g = stack(tuple(c[k] for c in columns), -1)
                jac.append(array.Reshape(g, tuple(out.shape) + tuple(x.shape)))
            per_input.append(tuple(jac) if isinstance(value, tuple) else jac[0])
        if single:
            jac = per_input[0]
        elif isinstance(value, tuple):
            jac = tuple(tuple(j[k] for j in per_input) for k in range(len(value)))
        else:
            jac = tuple(per_input)
        return (jac, aux) if has_aux else jac

    return jacobian
