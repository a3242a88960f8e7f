"""The nn/ops additions of issue 17 written once against MindSpore's API: 1-d/3-d and
transposed convolutions, 3-d and adaptive pooling, GRU/RNN, a Transformer decoder layer,
BiDense, LRN, interpolate, grid_sample, unfold/fold and CTCLoss.

``run(ms, arrays)`` builds each case with framework ``ms`` (``microspore`` or
``mindspore``), loads the weights by parameter name, and returns the output and the
gradients of its sum with respect to the input and every weight.
``test_vs_mindspore_nnapi.py`` runs it here and, with MindSpore's interpreter, as
``python _nnapi_cases.py IN.npz OUT.npz``.
"""

import sys

import numpy as np


def _fn_cell(ms, fn):
    class Fn(ms.nn.Cell):
        def construct(self, x):
            return fn(x)

    return Fn()


def build(ms, case):
    """(network, input shape) of ``case``."""
    nn, ops = ms.nn, ms.ops
    table = {
        "conv3d": (lambda: nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 2), pad_mode="pad",
                                     padding=(1, 0, 1, 1, 0, 2), group=2, has_bias=True),
                   (2, 4, 5, 6, 7)),
        "conv3d_transpose": (lambda: nn.Conv3dTranspose(4, 6, 3, stride=2, pad_mode="pad",
                                                        padding=1, output_padding=1, group=2),
                             (1, 4, 3, 4, 5)),
        "conv1d_transpose": (lambda: nn.Conv1dTranspose(4, 6, 3, stride=2, has_bias=True),
                             (2, 4, 9)),
        "maxpool3d": (lambda: nn.MaxPool3d(3, 2, pad_mode="same"), (2, 3, 5, 6, 7)),
        "avgpool3d": (lambda: nn.AvgPool3d(3, 2, pad_mode="pad", padding=1,
                                           count_include_pad=False), (2, 3, 5, 6, 7)),
        "adaptive_avg3d": (lambda: nn.AdaptiveAvgPool3d((2, 3, 4)), (2, 3, 5, 6, 7)),
        "gru": (lambda: nn.GRU(4, 6, num_layers=2, bidirectional=True), (5, 3, 4)),
        "rnn": (lambda: nn.RNN(4, 6, nonlinearity="relu", batch_first=True), (3, 5, 4)),
        "decoder": (lambda: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), (4, 2, 8)),
        "bidense": (lambda: nn.BiDense(5, 5, 3), (4, 5)),
        "lrn": (lambda: nn.LRN(2, 1.5, 0.3, 0.75), (2, 6, 3, 3)),
        "interpolate": (lambda: _fn_cell(ms, lambda x: ops.interpolate(
            x, size=(9, 5), mode="bilinear", align_corners=True)), (2, 3, 5, 6)),
        "grid_sample": (lambda: _fn_cell(ms, lambda x: ops.grid_sample(
            x, ms.Tensor(_GRID), "bilinear", "reflection", False)), (2, 3, 5, 6)),
        "unfold": (lambda: _fn_cell(ms, lambda x: ops.unfold(x, (2, 3), 1, 1, 2)),
                   (2, 3, 6, 7)),
    }
    make, shape = table[case]
    return make(), shape


_GRID = (np.random.default_rng(3).random((2, 4, 7, 2)) * 3 - 1.5).astype(np.float32)
CASES = ("conv3d", "conv3d_transpose", "conv1d_transpose", "maxpool3d", "avgpool3d",
         "adaptive_avg3d", "gru", "rnn", "decoder", "bidense", "lrn", "interpolate",
         "grid_sample", "unfold")


def _call(ms, case, net, x):
    if case == "decoder":
        return net(x, x * 0.5)
    if case == "bidense":
        return net(x, x * x)
    out = net(x)
    return out[0] if isinstance(out, tuple) else out


def param_shapes(ms, case):
    net, shape = build(ms, case)
    return {name: tuple(p.shape) for name, p in net.parameters_and_names()}, shape


def run(ms, arrays):
    """Every case's output and gradients, keyed ``"<case>/<what>"``."""
    out = {}
    for case in CASES:
        net, _ = build(ms, case)
        net.set_train(False)
        for name, p in net.parameters_and_names():
            p.set_data(ms.Tensor(arrays[case + "/" + name]))
        x = ms.Tensor(arrays[case + "/x"])
        out[case + "/out"] = _call(ms, case, net, x).asnumpy()
        params = net.trainable_params()

        def total(v, net=net, case=case):
            return _call(ms, case, net, v).sum()

        _, (gx, gw) = ms.value_and_grad(total, 0, weights=params)(x) if params else \
            (None, (ms.grad(total)(x), ()))
        out[case + "/grad_x"] = gx.asnumpy()
        for p, g in zip(params, gw):
            out[case + "/grad/" + p.name] = g.asnumpy()
    lp = arrays["ctc/log_probs"]
    loss_fn = ms.nn.CTCLoss(0, "mean")

    def ctc(v):
        return loss_fn(v, ms.Tensor(arrays["ctc/targets"]), ms.Tensor(arrays["ctc/in_len"]),
                       ms.Tensor(arrays["ctc/tg_len"]))

    loss, g = ms.value_and_grad(ctc)(ms.Tensor(lp))
    out["ctc/out"], out["ctc/grad_x"] = loss.asnumpy(), g.asnumpy()
    return out


if __name__ == "__main__":
    import mindspore

    mindspore.set_context(mode=mindspore.PYNATIVE_MODE, device_target="CPU")
    data = dict(np.load(sys.argv[1]))
    np.savez(sys.argv[2], **run(mindspore, data))
