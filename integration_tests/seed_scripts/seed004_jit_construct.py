"""Seed 004_2c200ab475df3945.txt, sample [5]: ``@ms.jit`` on the Network's ``construct``.

Only ``mindspore`` is renamed to ``microspore`` (the article lost its indentation, restored
here). GRAPH_MODE and ``ms.jit`` compile through ms-graph.
"""

import numpy as np
import microspore as ms
from microspore import nn, Tensor
class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28*28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10)
        )

    @ms.jit # 使用ms.jit装饰器,使被装饰的函数以静态图模式运行
    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits

input = Tensor(np.ones([64, 1, 28, 28]).astype(np.float32))
model = Network()
output = model(input)
print(output)
