"""Samples for BatchNorm (and its gradient operator), LayerNorm and L2Normalize: training
and inference, NCHW, NHWC and 2-d inputs, several normalized axes, and L2Normalize on
both sides of its ``epsilon`` floor."""


LAYOUTS = [((2, 3, 2, 2), "NCHW"), ((4, 3), "NCHW"), ((2, 2, 3), "NHWC")]


def _channel_params(rng, c):
    """scale, bias, mean, variance (positive) for ``c`` channels."""
    return (rng.uniform(0.5, 1.5, c), rng.standard_normal(c), rng.standard_normal(c) * 0.1,
            rng.uniform(0.5, 1.5, c))


def _batch_norm(rng):
    for shape, fmt in LAYOUTS:
        c = 3
        for training in (False, True):
            yield (rng.standard_normal(shape), *_channel_params(rng, c)), \
                {"is_training": training, "data_format": fmt}
    yield (rng.standard_normal((4, 3)), *_channel_params(rng, 3)), \
        {"is_training": True, "epsilon": 1e-3, "momentum": 0.5}


def _batch_norm_grad(rng):
    for shape, fmt in LAYOUTS:
        for training in (False, True):
            x = rng.standard_normal(shape)
            axes = tuple(i for i in range(x.ndim) if i != (x.ndim - 1 if fmt == "NHWC" else 1))
            scale, _, mean, var = _channel_params(rng, 3)
            if training:  # the batch statistics, as BatchNorm saves them
                mean, var = x.mean(axis=axes), x.var(axis=axes)
            yield (rng.standard_normal(shape), x, scale, mean, var), \
                {"is_training": training, "data_format": fmt}


def _layer_norm(rng):
    x = rng.standard_normal((2, 3, 4))
    yield (x, rng.uniform(0.5, 1.5, (3, 4)), rng.standard_normal((3, 4))), {}
    yield (x, rng.uniform(0.5, 1.5, (4,)), rng.standard_normal((4,))), \
        {"begin_norm_axis": -1, "begin_params_axis": -1}
    yield (x, rng.uniform(0.5, 1.5, (3, 4)), rng.standard_normal((3, 4))), \
        {"begin_norm_axis": 2, "begin_params_axis": 1, "epsilon": 1e-3}
    yield (rng.standard_normal((4, 5)), rng.uniform(0.5, 1.5, (5,)),
           rng.standard_normal((5,))), {"begin_norm_axis": 1, "begin_params_axis": 1}


def _l2_normalize(rng):
    yield (rng.standard_normal((3, 4)),), {}
    yield (rng.standard_normal((3, 4)),), {"axis": -1}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": 1, "epsilon": 1e-6}
    # squared norms below epsilon: the floor holds and the result is x / sqrt(epsilon)
    yield (rng.uniform(-0.1, 0.1, (2, 3)),), {"axis": 0, "epsilon": 1.0}


SAMPLES = {"BatchNorm": _batch_norm, "BatchNormGrad": _batch_norm_grad,
           "LayerNorm": _layer_norm, "L2Normalize": _l2_normalize}
