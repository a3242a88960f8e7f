"""Networks, losses and training steps written once against MindSpore's API.

``run(ms, arrays)`` takes a framework module (``microspore`` or ``mindspore``) and the
inputs and weights (``arrays``), builds each case's network with that framework, loads the
weights by parameter name, and returns outputs, loss, gradients and three Momentum steps
as numpy arrays. ``test_vs_mindspore_nn.py`` calls it with microspore in its own process
and runs this file with MindSpore's interpreter (``python _nn_cases.py IN.npz OUT.npz``),
so both frameworks execute the very same code. Python 3.9 compatible (MindSpore's side).
"""

import sys

import numpy as np

CASES = ("dense", "conv_pad", "conv_same", "lenet")
STEPS = 3
LR, MOMENTUM = 0.1, 0.9


def _lenet(ms):
    nn, ops = ms.nn, ms.ops

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.reshape = ops.Reshape()

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.reshape(x, (x.shape[0], -1))
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet5()


def build(ms, case):
    """``(network, loss_fn)`` of a case."""
    nn = ms.nn
    sce = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if case == "dense":
        return nn.Dense(20, 7, activation="relu"), sce
    if case == "conv_pad":
        return nn.Conv2d(3, 4, 3, stride=1, pad_mode="pad", padding=1, has_bias=True), \
            nn.MSELoss()
    if case == "conv_same":
        return nn.Conv2d(3, 5, 3, stride=2, pad_mode="same", has_bias=False), nn.MSELoss()
    if case == "lenet":
        return _lenet(ms), sce
    raise ValueError(case)


def param_shapes(ms, case):
    net, _ = build(ms, case)
    return {name: tuple(p.shape) for name, p in net.parameters_and_names()}


def run(ms, arrays):
    """Every case's results, keyed ``"<case>/<what>"``."""
    out = {}
    for case in CASES:
        net, loss_fn = build(ms, case)
        for name, p in net.parameters_and_names():
            p.set_data(ms.Tensor(arrays[case + "/" + name]))
        x = ms.Tensor(arrays[case + "/x"])
        y = ms.Tensor(arrays[case + "/y"])
        out[case + "/out"] = net(x).asnumpy()
        params = net.trainable_params()
        with_loss = ms.nn.WithLossCell(net, loss_fn)
        loss, grads = ms.value_and_grad(with_loss, None, weights=params)(x, y)
        out[case + "/loss"] = loss.asnumpy()
        for p, g in zip(params, grads):
            out[case + "/grad/" + p.name] = g.asnumpy()
        opt = ms.nn.Momentum(params, LR, MOMENTUM)
        step = ms.nn.TrainOneStepCell(with_loss, opt)
        step.set_train()
        out[case + "/step_losses"] = np.array([step(x, y).asnumpy() for _ in range(STEPS)])
        for p in params:
            out[case + "/trained/" + p.name] = p.asnumpy()
    return out


if __name__ == "__main__":
    import mindspore

    mindspore.set_context(mode=mindspore.PYNATIVE_MODE, device_target="CPU")
    data = dict(np.load(sys.argv[1]))
    np.savez(sys.argv[2], **run(mindspore, data))
