"""``GradOperation``: MindSpore's class style of asking for gradients."""

from __future__ import annotations

from ms_autodiff.api import _weights, differentiate, differentiating

__all__ = ["GradOperation"]


class GradOperation:
    """``GradOperation(get_all=False, get_by_list=False, sens_param=False)(fn[, weights])``.

    The returned function takes ``fn``'s inputs (then the sensitivity, with
    ``sens_param=True``) and returns the gradient of the first input; with ``get_all``
    a tuple for every input; with ``get_by_list`` a tuple for the weights; with both,
    ``(input_grads, weight_grads)``.
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False,
                 sens_param: bool = False):
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn, weights=None):
        if self.get_by_list and weights is None:
            raise ValueError("GradOperation(get_by_list=True) needs weights: "
                             "GradOperation(get_by_list=True)(fn, weights)")
        ws, _ = _weights(weights, "GradOperation") if self.get_by_list else ([], False)

        def grad_fn(*args):
            sens = None
            if self.sens_param:
                if not args:
                    raise TypeError("GradOperation(sens_param=True): the last argument must "
                                    "be the sensitivity")
                args, sens = args[:-1], args[-1]
            if self.get_all:
                positions = tuple(range(len(args)))
            elif self.get_by_list:
                positions = ()
            else:
                if not args:
                    raise TypeError("GradOperation: the function needs at least one input "
                                    "to differentiate")
                positions = (0,)
            _, pos, wg, _ = differentiate(fn, args, positions, ws, sens=sens,
                                          who="GradOperation")
            if self.get_all and self.get_by_list:
                return tuple(pos), tuple(wg)
            if self.get_by_list:
                return tuple(wg)
            return tuple(pos) if self.get_all else pos[0]

        return differentiating(grad_fn, fn, lambda new: self(new, weights))
