"""``nn.ForwardValueAndGrad`` (the loss and its gradients in one call) and
``nn.WithGradCell`` (the gradients of a network's loss with respect to its weights)."""

from __future__ import annotations

from types import FunctionType, MethodType

from ms_autodiff.grad_operation import GradOperation
from ms_nn.cell import Cell
from ms_nn.wrap.cell_wrapper import WithLossCell
from ms_tensor import ParameterTuple

__all__ = ["ForwardValueAndGrad", "WithGradCell"]


class ForwardValueAndGrad(Cell):
    """``(network(*inputs), gradients)``: of the first input, of every input
    (``get_all``), of ``weights`` (``get_by_list``) or both; with ``sens_param`` the last
    input is the output's gradient.

    >>> from ms_nn.layers import Dense
    >>> net = Dense(3, 1); fvg = ForwardValueAndGrad(net, net.trainable_params(),
    ...                                              get_by_list=True)
    >>> loss, grads = fvg(ops.ones((2, 3))); [g.shape for g in grads]
    [(1, 3), (1,)]
    """

    def __init__(self, network, weights=None, get_all=False, get_by_list=False,
                 sens_param=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, (Cell, FunctionType, MethodType)):
            raise TypeError(f"ForwardValueAndGrad: network must be a Cell or a function, got "
                            f"{type(network).__name__}")
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list)):
            if not isinstance(v, bool):
                raise TypeError(f"ForwardValueAndGrad: {name} must be a bool, got {v!r}")
        if get_by_list and not isinstance(weights, (ParameterTuple, tuple, list)):
            raise TypeError(f"ForwardValueAndGrad: get_by_list=True needs a list of Parameters "
                            f"as weights, got {type(weights).__name__}")
        self.network, self.weights = network, weights
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self.grad = GradOperation(get_all, get_by_list, sens_param)

    def construct(self, *inputs):
        loss = self.network(*(inputs[:-1] if self.sens_param else inputs))
        fn = self.grad(self.network, self.weights) if self.get_by_list else \
            self.grad(self.network)
        return loss, fn(*inputs)


class WithGradCell(Cell):
    """The gradients of ``loss_fn(network(data), label)`` (or of ``network``'s own output
    when ``loss_fn`` is None) with respect to the network's trainable weights.

    >>> from ms_nn.layers import Dense
    >>> from ms_nn.loss import MSELoss
    >>> grads = WithGradCell(Dense(3, 1), MSELoss())(ops.ones((2, 3)), ops.zeros((2, 1)))
    >>> [g.shape for g in grads]
    [(1, 3), (1,)]
    """

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        self.network, self.loss_fn, self.sens = network, loss_fn, sens
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()

    def construct(self, *inputs):
        fn = self.grad(self.network_with_loss, self.weights)
        return fn(*inputs) if self.sens is None else fn(*inputs, self.sens)
