"""Samples for Conv2D and its two gradient operators: padding modes, stride, dilation and
groups on small NCHW inputs."""

# (x shape, weight shape, attrs)
_CASES = (
    ((1, 2, 4, 3), (2, 2, 2, 2), {}),
    ((1, 2, 4, 4), (2, 2, 3, 3), {"pad_mode": "same", "stride": 2}),
    ((1, 1, 5, 4), (2, 1, 2, 2), {"pad_mode": "pad", "pad": (1, 0, 0, 1), "dilation": 2}),
    ((2, 2, 3, 3), (2, 1, 2, 2), {"group": 2}),
)


def _geometry(rng):
    """(x, weight, attrs, output shape) per case, the output shape from Conv2D itself."""
    from ms_ops.defs.nn_conv import Conv2D
    from ms_tensor.tensor import Tensor

    for xs, ws, extra in _CASES:
        attrs = {"out_channel": ws[0], "kernel_size": ws[2:], **extra}
        x, w = rng.standard_normal(xs), rng.standard_normal(ws)
        yield x, w, attrs, Conv2D(Tensor(x), Tensor(w), **attrs).shape


def _conv2d(rng):
    for x, w, attrs, _ in _geometry(rng):
        yield (x, w), attrs


def _backprop_input(rng):
    for x, w, attrs, out in _geometry(rng):
        yield (rng.standard_normal(out), w, x.shape), attrs


def _backprop_filter(rng):
    for x, w, attrs, out in _geometry(rng):
        yield (rng.standard_normal(out), x, w.shape), attrs


SAMPLES = {"Conv2D": _conv2d, "Conv2DBackpropInput": _backprop_input,
           "Conv2DBackpropFilter": _backprop_filter}
