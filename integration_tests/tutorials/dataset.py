"""The dataset tutorial's patterns: sources (numpy, generator classes, the digits in MNIST's
format), transforms, batch/zip/concat/project/rename/take/skip, iterators."""

import os

import mindspore
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision
import numpy as np
from _common import report


class RandomAccess:
    """A source with __getitem__ and __len__."""

    def __init__(self):
        self.data = np.arange(12, dtype=np.float32).reshape(6, 2)
        self.label = np.arange(6, dtype=np.int32)

    def __getitem__(self, i):
        return self.data[i], self.label[i]

    def __len__(self):
        return len(self.data)


class Iterable:
    """A source with __iter__/__next__ (and __len__)."""

    def __init__(self):
        self.i = 0

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= 4:
            raise StopIteration
        self.i += 1
        return (np.full((2,), self.i, np.float32),)

    def __len__(self):
        return 4




def gen():
    """A fresh source: MindSpore lets one dataset object feed one pipeline only."""
    return ds.GeneratorDataset(RandomAccess(), ["data", "label"], shuffle=False)


def it():
    return ds.GeneratorDataset(Iterable(), ["x"], shuffle=False)


batches = [b["data"] for b in gen().batch(4, drop_remainder=False).create_dict_iterator()]
mapped = gen().map(lambda d: d * 2.0, "data").map(transforms.TypeCast(mindspore.float16),
                                                  "label")
mapped_rows = [tuple(t.asnumpy() for t in r) for r in mapped.create_tuple_iterator()]
zipped = ds.zip((gen().project("label"), it().rename("x", "y")))
concat = gen().take(2) + gen().skip(4)
mnist = ds.MnistDataset(os.environ["DIGITS_DIR"], usage="test", num_samples=8, shuffle=False)
pipeline = mnist.map([vision.Resize((32, 32)), vision.Rescale(1 / 255.0, 0.0),
                      vision.Normalize(mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()],
                     "image").map(transforms.TypeCast(mindspore.int32), "label").batch(4)
images, labels = next(pipeline.create_tuple_iterator())
numpy_ds = ds.NumpySlicesDataset({"a": np.arange(5, dtype=np.int32)}, shuffle=False)
flip = vision.HorizontalFlip()(np.arange(6, dtype=np.uint8).reshape(1, 2, 3))
report(gen_size=gen().get_dataset_size(), it_rows=[r[0] for r in it().create_tuple_iterator()],
       batches=batches, mapped=[[a, b] for a, b in mapped_rows],
       zipped=[list(r) for r in zipped.create_tuple_iterator(output_numpy=True)],
       concat=[r["label"] for r in concat.create_dict_iterator(output_numpy=True)],
       columns=zipped.get_col_names(), mnist_size=pipeline.get_dataset_size(),
       images=[images.shape, str(images.dtype), float(images.asnumpy().sum())], labels=labels,
       numpy_ds=[r["a"] for r in numpy_ds.create_dict_iterator(output_numpy=True)],
       flip=flip)
