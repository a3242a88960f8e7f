"""The training tutorial's patterns: forward_fn, value_and_grad over the optimizer's
parameters, a train_step, a loop over a dataset, then Model.train/eval."""

import mindspore
import mindspore.dataset as ds
import numpy as np
from _common import report
from mindspore import Tensor, nn

rng = np.random.default_rng(2)
features = rng.standard_normal((64, 8)).astype(np.float32)
labels = (features[:, 0] + features[:, 1] > 0).astype(np.int32)


def make_net():
    net = nn.SequentialCell(nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 2))
    weights = np.random.default_rng(3)
    for p in net.trainable_params():
        p.set_data(Tensor((weights.standard_normal(p.shape) * 0.3).astype(np.float32)))
    return net


def dataset():
    return ds.NumpySlicesDataset((features, labels), ["x", "y"], shuffle=False).batch(16)


model = make_net()
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), learning_rate=0.1)


def forward_fn(data, label):
    logits = model(data)
    return loss_fn(logits, label), logits


grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    optimizer(grads)
    return loss


losses = []
for _ in range(3):
    model.set_train()
    for data, label in dataset().create_tuple_iterator():
        losses.append(train_step(data, label).asnumpy())

net = make_net()
momentum = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
trainer = mindspore.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                          momentum, metrics={"accuracy", "loss"})
trainer.train(3, dataset())
metrics = trainer.eval(dataset())
report(losses=losses, metrics=metrics, weights=list(net.trainable_params()),
       predict=trainer.predict(Tensor(features[:4])))
