"""The main job: train LeNet5 on the bundled handwritten digits and report test accuracy.

This is the seed's MindSpore LeNet5 script (shared/seeds/001_cac2313df423c2b8.txt) with
``mindspore`` renamed to ``microspore``: the same ``create_dataset`` (MnistDataset -> map
Resize, Rescale, Rescale, HWC2CHW, TypeCast -> shuffle -> batch -> repeat), the same
network with TruncatedNormal(0.02) weights, ``nn.SoftmaxCrossEntropyWithLogits`` and
``nn.Momentum(lr=0.01, momentum=0.9)``, trained by ``Model.train`` with ``LossMonitor``,
then ``Model.eval`` for the accuracy.

Differences from the seed, and why:
- the data are the 1,797 real handwritten digits bundled with microspore (1,500 train, 297
  test, 28x28 in MNIST's IDX format), not a 60,000-image download;
- 50 epochs instead of 10: with 46 batches per epoch the seed's 10 epochs are only 460
  steps, and TruncatedNormal(0.02) starts the network on a plateau that it leaves after
  roughly 15-20 epochs;
- LeNet5 flattens with ``(batch, -1)`` taken from the input instead of a fixed 32, so the
  test split's last, smaller batch is evaluated too (no test image is dropped);
- PyNative mode (the default): graph compilation does not exist yet.

Run: ``python examples/lenet.py`` (``--epochs N``, ``--lr X``, ``--seed S``).
"""

import argparse
import time

import microspore as ms
import microspore.dataset as ds
import microspore.dataset.transforms as transforms
import microspore.dataset.vision as vision
import microspore.nn as nn
import microspore.ops as ops
from microspore.common.initializer import TruncatedNormal
from microspore.dataset.vision import Inter


def create_dataset(data_path, usage, batch_size=32, repeat_size=1, num_parallel_workers=1,
                   training=True):
    """The seed's create_dataset; the test split is neither shuffled nor cut to full batches."""
    mnist_ds = ds.MnistDataset(data_path, usage=usage)

    resize_height, resize_width = 32, 32
    rescale = 1.0 / 255.0
    shift = 0.0
    rescale_nml = 1 / 0.3081
    shift_nml = -1 * 0.1307 / 0.3081

    resize_op = vision.Resize((resize_height, resize_width), interpolation=Inter.LINEAR)
    rescale_nml_op = vision.Rescale(rescale_nml, shift_nml)
    rescale_op = vision.Rescale(rescale, shift)
    hwc2chw_op = vision.HWC2CHW()
    type_cast_op = transforms.TypeCast(ms.int32)

    mnist_ds = mnist_ds.map(input_columns="label", operations=type_cast_op,
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(input_columns="image", operations=resize_op,
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(input_columns="image", operations=rescale_op,
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(input_columns="image", operations=rescale_nml_op,
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(input_columns="image", operations=hwc2chw_op,
                            num_parallel_workers=num_parallel_workers)

    if training:
        mnist_ds = mnist_ds.shuffle(buffer_size=10000)  # 10000 as in LeNet train script
    mnist_ds = mnist_ds.batch(batch_size, drop_remainder=training)
    mnist_ds = mnist_ds.repeat(repeat_size)
    return mnist_ds


def weight_variable():
    return TruncatedNormal(0.02)


def conv(in_channels, out_channels, kernel_size, stride=1, padding=0):
    return nn.Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride,
                     padding=padding, weight_init=weight_variable(), has_bias=False,
                     pad_mode="valid")


def fc_with_initialize(input_channels, out_channels):
    return nn.Dense(input_channels, out_channels, weight_variable(), weight_variable())


class LeNet5(nn.Cell):
    """The seed's LeNet5: two 5x5 convolutions with max pooling, three dense layers."""

    def __init__(self, num_class=10):
        super().__init__()
        self.num_class = num_class
        self.conv1 = conv(1, 6, 5)
        self.conv2 = conv(6, 16, 5)
        self.fc1 = fc_with_initialize(16 * 5 * 5, 120)
        self.fc2 = fc_with_initialize(120, 84)
        self.fc3 = fc_with_initialize(84, self.num_class)
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


def main(argv=None):
    parser = argparse.ArgumentParser(description="Train LeNet5 on the bundled digits.")
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    ms.set_seed(args.seed)            # weights
    ds.config.set_seed(args.seed)     # shuffling
    data_dir = ds.bundled.digits_dir()
    ds_train = create_dataset(data_dir, "train")
    ds_test = create_dataset(data_dir, "test", training=False)
    steps = ds_train.get_dataset_size()
    print(f"LeNet5 on the bundled digits: {steps} batches of 32 per epoch, {args.epochs} "
          f"epochs, Momentum(lr={args.lr}, momentum=0.9)")

    network = LeNet5(10)
    net_loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    net_opt = nn.Momentum(network.trainable_params(), args.lr, 0.9)
    model = ms.Model(network, net_loss, net_opt, metrics={"Accuracy": nn.Accuracy()})

    model.train(args.epochs, ds_train, callbacks=[ms.LossMonitor(per_print_times=steps)],
                dataset_sink_mode=False)
    result = model.eval(ds_test, dataset_sink_mode=False)
    n_test = ds.MnistDataset(data_dir, usage="test").get_dataset_size()
    accuracy = result["Accuracy"]
    print(f"test accuracy: {accuracy:.2%} ({round(accuracy * n_test)}/{n_test} digits) "
          f"after {time.perf_counter() - start:.1f} s")
    return accuracy


if __name__ == "__main__":
    main()
