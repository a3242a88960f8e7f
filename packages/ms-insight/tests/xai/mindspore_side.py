"""Run MindSpore XAI 1.8.1 on the case in an .npz and write its results to another.

Runs under the side venv's Python (MindSpore 2.10 + mindspore-xai), never under
microspore's: ``python mindspore_side.py CASE.npz OUT.npz``. Imports happen in
``main`` so that collecting this file for doctests imports nothing.
"""


def _lenet(ms, nn, weights):
    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
            self.fc1 = nn.Dense(400, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    net = LeNet5()
    for p in net.get_parameters():
        p.set_data(ms.Tensor(weights[p.name]))
    net.set_train(False)
    return net


def main(case_path, out_path):
    import mindspore as ms
    import mindspore_xai.explainer.backprop.intermediate_layer as intermediate
    import numpy as np
    from mindspore import nn
    from mindspore_xai.benchmark import ClassSensitivity, Faithfulness, Localization, Robustness
    from mindspore_xai.explainer import (
        RISE,
        Deconvolution,
        GradCAM,
        Gradient,
        GuidedBackprop,
        Occlusion,
        RISEPlus,
    )
    from mindspore_xai.tool.cv import OoDNet
    from PIL import Image

    ms.set_context(mode=ms.PYNATIVE_MODE)
    case = dict(np.load(case_path))
    weights = {k[2:]: v for k, v in case.items() if k.startswith("w:")}
    net = _lenet(ms, nn, weights)
    x, targets = ms.Tensor(case["x"]), [int(t) for t in case["targets"]]
    x1, t1 = ms.Tensor(case["x"][:1]), int(case["targets"][0])
    out = {}
    # The same change of MindSpore's backward hooks (grad_input is now the gradient of the
    # cell's input, grad_output of its output) swaps XAI 1.8.1's two ReLU rules; put each
    # back: Deconvolution rectifies the output's gradient, GuidedBackprop the input's.
    from mindspore_xai.explainer.backprop.modified_relu import ModifiedReLU

    def relu_hook(self, cell, grad_in, grad_out):
        grads = grad_out if self.use_relu_backprop else grad_in
        return tuple(ms.ops.relu(g) for g in grads)

    ModifiedReLU._backward_hook = relu_hook
    for cls in (Gradient, Deconvolution, GuidedBackprop):
        out[cls.__name__] = cls(net)(x, targets).asnumpy()
    pictures = Gradient(net)(x, targets, ret="image", show=False)
    out["image:Gradient"] = np.stack([np.asarray(row[0]) for row in pictures])
    # The same in GRAPH_MODE, on a fresh network (XAI 1.8.1's GradCAM fails there on
    # MindSpore 2.10: "Conv2d object has no attribute '_original_construct'").
    ms.set_context(mode=ms.GRAPH_MODE)
    graph_net = _lenet(ms, nn, weights)
    for cls in (Gradient, Deconvolution, GuidedBackprop):
        out[f"graph:{cls.__name__}"] = cls(graph_net)(x, targets).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)

    def float_resize(inputs, size, mode):
        # XAI rounds through 8-bit PIL images; the float resize is what is compared.
        arr = inputs.asnumpy()
        res = [[np.asarray(Image.fromarray(c).resize(size[::-1], Image.BILINEAR))
                for c in s] for s in arr]
        return ms.Tensor(np.asarray(res, np.float32))

    intermediate.resize_fn = float_resize
    # MindSpore 2.x hands a backward hook (cell, grad_input, grad_output) in PyTorch's
    # sense, so XAI 1.8.1's GradCAM would take the gradient of conv2's *input*; take its
    # output's, as GradCAM means (and as XAI did under MindSpore 1.x).
    GradCAM._cell_hook_fn = lambda self, cell, grad_in, grad_out: setattr(
        self, "_intermediate_grad", grad_out)
    out["GradCAM"] = GradCAM(net, layer="conv2")(x, targets).asnumpy()
    out["Occlusion"] = Occlusion(net, nn.Softmax())(x1, t1).asnumpy()

    masks = iter(case["rise_masks"])

    def next_masks(self, data, batch_size):
        return ms.Tensor(np.stack([next(masks) for _ in range(batch_size)]), ms.float32)

    RISE._generate_masks = next_masks
    rise = RISE(net, nn.Softmax(), perturbation_per_eval=32)
    rise._num_masks = int(case["num_masks"])
    out["RISE"] = rise(x, ms.Tensor(case["rise_targets"])).asnumpy()

    class OodScores(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.dense = nn.Dense(1024, 10)
            self.dense.weight.set_data(ms.Tensor(case["ood_w"]))
            self.dense.bias.set_data(ms.Tensor(case["ood_b"]))
            self.softmax = nn.Softmax()

        def construct(self, x):
            return self.softmax(self.dense(self.flatten(x)))

    class Underlying(nn.Cell):
        def __init__(self):
            super().__init__()
            self.num_features = 84
            self.output_features = False
            self.net = _lenet(ms, nn, weights)

        def construct(self, x):
            return self.net(x)

    masks = iter(case["rise_masks"])
    plus = RISEPlus(OoDNet(Underlying(), 10), net, nn.Softmax(), perturbation_per_eval=32)
    plus._ood_net = OodScores()
    plus._num_masks = int(case["num_masks"])
    out["RISEPlus"] = plus(x, ms.Tensor(np.array(targets, np.int32))).asnumpy()

    saliency = ms.Tensor(case["saliency"])
    gradient = Gradient(net)
    for metric in ("NaiveFaithfulness", "DeletionAUC", "InsertionAUC"):
        out[metric] = Faithfulness(10, nn.Softmax(), metric).evaluate(gradient, x1, t1, saliency)
    for metric in ("PointingGame", "IoSR"):
        loc = Localization(10, metric)
        out[metric] = loc.evaluate(gradient, x1, t1, saliency, mask=case["loc_mask"])
    out["ClassSensitivity"] = ClassSensitivity().evaluate(gradient, x1)
    noise = iter(case["noise"])
    robustness = Robustness(10, nn.Softmax())
    robustness._perturb = lambda sample: sample + next(noise)
    out["Robustness"] = robustness.evaluate(gradient, x1, t1, saliency)
    np.savez(out_path, **out)


if __name__ == "__main__":
    import sys

    main(sys.argv[1], sys.argv[2])
