"""The autograd tutorial's patterns: grad of a function by position, value_and_grad,
has_aux, stop_gradient, and a Cell's parameters' gradients."""

import mindspore
import numpy as np
from _common import report
from mindspore import Parameter, Tensor, nn, ops

rng = np.random.default_rng(1)
x = ops.ones(5, mindspore.float32)
y = ops.zeros(3, mindspore.float32)
w = Parameter(Tensor(rng.standard_normal((5, 3)).astype(np.float32)), name="w")
b = Parameter(Tensor(rng.standard_normal((3,)).astype(np.float32)), name="b")


def function(x, y, w, b):
    z = ops.matmul(x, w) + b
    return ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))


def function_aux(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss, z


def function_stop(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss, ops.stop_gradient(z)


grads = mindspore.grad(function, (2, 3))(x, y, w, b)
aux_grads, (aux_z,) = mindspore.grad(function_aux, (2, 3), has_aux=True)(x, y, w, b)
stop_grads = mindspore.grad(function_stop, (2, 3))(x, y, w, b)


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = w
        self.b = b

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


net = Network()
loss_fn = nn.BCEWithLogitsLoss()


def forward_fn(x, y):
    return loss_fn(net(x), y)


value_and_grad = mindspore.value_and_grad(forward_fn, None, weights=net.trainable_params())
value, param_grads = value_and_grad(x, y)
second = mindspore.grad(mindspore.grad(lambda t: (t ** 3).sum()))(Tensor([1.0, 2.0]))
report(loss=function(x, y, w, b), grads=list(grads), aux=[list(aux_grads), aux_z],
       stop=list(stop_grads), value=value, param_grads=list(param_grads), second=second)
