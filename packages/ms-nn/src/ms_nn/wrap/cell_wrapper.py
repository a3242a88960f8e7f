"""Wrappers that turn a network into a loss, an evaluation step or a training step."""

from __future__ import annotations

from contextlib import nullcontext

import ms_ops as ops
from ms_autodiff import value_and_grad
from ms_nn.cell import Cell
from ms_tensor import Tensor, bfloat16, float16, float32, float64

__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell"]


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``: a network and its loss as one Cell.

    Parameter names stay the backbone's (no ``_backbone.`` prefix), as in MindSpore.
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


class WithEvalCell(Cell):
    """``(loss, outputs, label)`` for evaluation; with ``add_cast_fp32`` the outputs and
    label are cast to float32 first (for a network computing in float16)."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = bool(add_cast_fp32)

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label = _to_float32(label)
            outputs = ops.cast(outputs, float32)
        return self._loss_fn(outputs, label), outputs, label


def _to_float32(x):
    if isinstance(x, Tensor) and x.dtype in (float16, bfloat16, float64):
        return ops.cast(x, float32)
    return x


class TrainOneStepCell(Cell):
    """One training step: the loss, its gradients with respect to
    ``optimizer.parameters``, and the optimizer's update; returns the loss.

    Args:
        network: a Cell returning the loss (e.g. a ``WithLossCell``).
        optimizer: an ``Optimizer`` over the network's Parameters.
        sens: the gradient of the output fed to backpropagation (1.0 by default; the
            gradients scale with it).
        return_grad: return ``(loss, gradients)`` instead.
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad
        self.grad_reducer = _grad_reducer(self.weights)
        # a subclass with its own construct runs unsharded, unless the construct is one
        # that asks the sharded step for its gradients (``_shardable``: loss scaling's)
        own = type(self).construct is type(self)._shardable
        self._parallel_step = _parallel_step(network, optimizer, self.sens) if own else None
        if self._parallel_step is not None:
            self._graph_capturable = False  # the sharded step compiles itself in GRAPH_MODE
        self._value_and_grad = value_and_grad(network, grad_position=None, weights=self.weights)
        self._scaled_value_and_grad = value_and_grad(self._scaled_loss, grad_position=None,
                                                     weights=self.weights, has_aux=True)

    def _scaled_loss(self, sens, *inputs):
        # d(loss * sens)/dw feeds ``sens`` into the backward pass exactly as a filled
        # sensitivity would (what loss scaling needs: float16 gradients are computed
        # scaled); the unscaled loss rides along as the auxiliary output
        loss = self.network(*inputs)
        return loss * ops.cast(sens, loss.dtype), loss

    def loss_and_grads(self, inputs, sens=None):
        """``(loss, gradients)`` of one forward and backward pass, with ``sens`` (a number
        or a one-value Tensor) as the gradient of the loss."""
        sens = self.sens if sens is None else sens
        if not isinstance(sens, Tensor) and sens == 1.0:
            return self._value_and_grad(*inputs)
        if not isinstance(sens, Tensor):
            sens = Tensor(sens, float32)
        (_, loss), grads = self._scaled_value_and_grad(sens, *inputs)
        return loss, grads

    def construct(self, *inputs):
        if self._parallel_step is not None:  # semi-auto / auto parallel: sharded step
            loss, grads = self._parallel_step(*inputs)
            return (loss, grads) if self.return_grad else loss
        # A reducer may start reducing gradients while the backward pass still runs
        overlap = getattr(self.grad_reducer, "overlapping", None)
        with overlap() if overlap is not None else nullcontext():
            loss, grads = self.loss_and_grads(inputs)
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, grads
        return loss


TrainOneStepCell._shardable = TrainOneStepCell.construct


def _identity(grads):
    return grads


def _parallel_step(network, optimizer, sens):
    """The sharded training step of SEMI_AUTO_PARALLEL / AUTO_PARALLEL, or None: a package
    above ms-nn (ms-parallel) registers its factory as ``("train_hook", "parallel_step")``."""
    from ms_tensor import registry

    make = registry.load().lookup("train_hook", "parallel_step")
    return None if make is None else make(network, optimizer, sens)


def _grad_reducer(weights):
    """The reducer of the parallel mode in effect, or ``_identity``.

    A package above ms-nn (ms-parallel) registers a factory as ``("train_hook",
    "grad_reducer")``: called with the weights, it returns a Cell reducing their
    gradients over the ranks (data parallel), or None where gradients stay local.
    """
    from ms_tensor import registry

    make = registry.load().lookup("train_hook", "grad_reducer")
    reducer = None if make is None else make(weights)
    return _identity if reducer is None else reducer
