"""Train the main job's LeNet5 (examples/lenet.py's dataset, network, loss, optimizer and
Model.train) and save the checkpoint the lite tests and bench_lite.py start from.

Run: ``python integration_tests/lite/train_lenet.py [--epochs 25]`` (writes
``integration_tests/lite/data/lenet5_digits.ckpt``; about 10 s per epoch on one core).
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CKPT = Path(__file__).resolve().parent / "data" / "lenet5_digits.ckpt"


def main(argv=None):
    sys.path.insert(0, str(ROOT / "examples"))
    import lenet

    import microspore as ms
    import microspore.dataset as ds
    import microspore.nn as nn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    ms.set_seed(args.seed)
    ds.config.set_seed(args.seed)
    data_dir = ds.bundled.digits_dir()
    network = lenet.LeNet5(10)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(network.trainable_params(), 0.01, 0.9)
    model = ms.Model(network, loss, opt, metrics={"Accuracy": nn.Accuracy()})
    model.train(args.epochs, lenet.create_dataset(data_dir, "train"),
                callbacks=[ms.LossMonitor(per_print_times=46)], dataset_sink_mode=False)
    acc = model.eval(lenet.create_dataset(data_dir, "test", training=False),
                     dataset_sink_mode=False)["Accuracy"]
    print(f"test accuracy {acc:.2%}")
    CKPT.parent.mkdir(exist_ok=True)
    ms.save_checkpoint(network, str(CKPT))
    print(f"wrote {CKPT}")


if __name__ == "__main__":
    main()
