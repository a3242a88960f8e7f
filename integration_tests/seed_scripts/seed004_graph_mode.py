"""Seed 004_2c200ab475df3945.txt, samples [2] and [6] (静态图模式 / 基于context的开启方式, the
same code): the Network with the context set to GRAPH_MODE.

Only ``mindspore`` is renamed to ``microspore`` (the article lost its indentation, restored
here). GRAPH_MODE and ``ms.jit`` compile through ms-graph.
"""

import numpy as np
import microspore as ms
from microspore import nn, Tensor
ms.set_context(mode=ms.GRAPH_MODE) # 使用set_context进行运行静态图模式的配置
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

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits

model = Network()
input = Tensor(np.ones([64, 1, 28, 28]).astype(np.float32))
output = model(input)
print(output)
