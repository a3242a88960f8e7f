# ruff: noqa: F401 -- a setup imports the names its examples use
"""A small CNN (two 3x3 convolutions, ``conv1`` and ``conv2``, then a global max pool)
trained on a task whose evidence is known (a seven-segment digit pasted into noise,
``ms_insight.explainer.testing``), and one test batch of ``(images, labels, masks)`` as
``dataset``, with ``class_names``. Seeded, with 8 test images: on 2, one explainer's mean
localization moved between 0 and 1 from one unseeded run to the next."""

import microspore as ms
from microspore import nn
from ms_insight.explainer.testing import SmallCNN, digits_in_noise, train

ms.set_seed(0)
images, labels, _ = digits_in_noise(512, seed=0)
net = SmallCNN(num_class=4)
accuracy = train(net, images, labels, epochs=4)
test_images, test_labels, test_masks = digits_in_noise(8, seed=1)
dataset = [(test_images, test_labels, test_masks)]
class_names = ["0", "1", "4", "7"]
