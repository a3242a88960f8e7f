"""The main job, for now: a tour of microspore's tensors and operators.

It trains a small classifier on two interleaved spirals by replaying the operators'
registered gradient rules by hand (the autodiff package will do this replay for you),
then runs a convolution block and shows an error message. Run: python examples/demo.py
"""

import numpy as np

import ms_ops as ops
from ms_tensor import Tensor, float32, int32, registry


def spirals(n_per_class: int, seed: int = 0):
    """Two interleaved spirals in the plane: a task a linear model cannot solve."""
    rng = np.random.default_rng(seed)
    t = np.sqrt(rng.uniform(0.05, 1.0, n_per_class)) * 3 * np.pi
    arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / (3 * np.pi)
    x = np.concatenate([arm, -arm]) + rng.normal(0, 0.02, (2 * n_per_class, 2))
    y = np.concatenate([np.zeros(n_per_class), np.ones(n_per_class)]).astype(np.int32)
    return Tensor(x, float32), Tensor(y)


def tour_of_tensors():
    print("== tensors ==")
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]), float32)
    print(repr(x))
    print("x.sum(axis=1) =", x.sum(axis=1), "  x.T @ x =", (x.T @ x).asnumpy().tolist())
    print("int32 + 2.5 ->", (Tensor([1, 2], int32) + 2.5).dtype,
          "  int32 / int32 ->", (Tensor([1, 2], int32) / Tensor([2, 2], int32)).dtype)


def train_mlp(epochs: int = 500, hidden: int = 64, lr: float = 0.5):
    print("\n== a 2-64-2 classifier on two spirals, trained with the registered gradient rules ==")
    x, y = spirals(300)
    rng = np.random.default_rng(1)
    w1 = Tensor(rng.normal(0, 4.0, (2, hidden)), float32)
    b1 = Tensor(rng.normal(0, 1.0, hidden), float32)
    w2 = Tensor(rng.normal(0, 0.1, (hidden, 2)), float32)
    bprop = registry.load().bprop
    labels = ops.one_hot(y, 2).astype(float32)
    for epoch in range(1, epochs + 1):
        # forward, keeping what the gradient rules need
        z1 = ops.MatMul()(x, w1)
        a1 = z1 + b1
        h = ops.tanh(a1)
        logits = ops.MatMul()(h, w2)
        loss, dlogits = ops.SoftmaxCrossEntropyWithLogits()(logits, labels)
        # backward: each operator's own rule, in reverse order
        dlogits = dlogits / x.shape[0]
        dh, dw2 = bprop("MatMul")(h, w2, out=logits, dout=dlogits)
        (da1,) = bprop("Tanh")(a1, out=h, dout=dh)
        dz1, db1 = bprop("Add")(z1, b1, out=a1, dout=da1)
        _, dw1 = bprop("MatMul")(x, w1, out=z1, dout=dz1)
        w1, b1, w2 = w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2
        if epoch % 100 == 0:
            accuracy = float((ops.argmax(logits, 1).astype(int32) == y).astype(float32).mean())
            print(f"epoch {epoch:3d}  loss {float(loss.mean()):.4f}  train accuracy {accuracy:.3f}")
    x_test, y_test = spirals(150, seed=7)
    logits = ops.MatMul()(ops.tanh(ops.MatMul()(x_test, w1) + b1), w2)
    accuracy = float((ops.argmax(logits, 1).astype(int32) == y_test).astype(float32).mean())
    print(f"held-out accuracy {accuracy:.3f} on {x_test.shape[0]} new points")


def convolution_block():
    print("\n== conv2d -> relu -> max_pool2d on a batch of images ==")
    rng = np.random.default_rng(2)
    images = Tensor(rng.standard_normal((8, 1, 28, 28)), float32)
    kernels = Tensor(rng.standard_normal((6, 1, 5, 5)) * 0.2, float32)
    conv = ops.conv2d(images, kernels, pad_mode="pad", padding=2)
    features = ops.max_pool2d(ops.relu(conv), 2, 2)
    print("images", images.shape, "-> features", features.shape)
    try:
        ops.conv2d(images, Tensor(np.ones((6, 3, 5, 5)), float32))
    except ValueError as e:
        print("a wrong weight gives:", e)


def main():
    tour_of_tensors()
    train_mlp()
    convolution_block()
    prims = registry.load().entries("primitive")
    print(f"\n{len(prims)} operators registered; list them with: python -m ms_tensor.registry")


if __name__ == "__main__":
    main()
