"""Seed 002_f5a5c9597a98cc8d.txt, "MindSpore 代码什么样?": predict in PyNative mode, switch the
context to GRAPH_MODE with one line, predict again.

Changes beyond the rename: the seed's ``net = Net`` names a network it never defines, so a
small ``Net`` (Dense over the last axis) is defined here and instantiated; the article's
run-together words (``importnumpy asnp``) are spaced; ``out_pynative`` keeps the first
result for the test to compare. GRAPH_MODE compiles through ms-graph.
"""

import numpy as np

import microspore.context as context

import microspore.nn as nn

from microspore import Tensor


class Net(nn.Cell):  # not in the seed (see the docstring)
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(1024, 8)

    def construct(self, x):
        return self.dense(x)


# Initialize the network

net = Net()

x = Tensor(np.random.rand( 1, 1, 4, 1024).astype(np.float32))

# Predict the network in PyNative mode, by default

out = net(x)
out_pynative = out

# Change to Graph mode to predict the network

context.set_context(mode=context.GRAPH_MODE)

out = net(x)
