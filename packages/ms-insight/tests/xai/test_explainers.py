"""The explainers on the main job's LeNet5 and a small CNN: shapes, determinism, the
gradient against finite differences, hooks removed after a call, clear errors."""

import numpy as np
import pytest

import ms_nn as nn
from ms_insight.explainer import (
    RISE,
    Deconvolution,
    GradCAM,
    Gradient,
    GuidedBackprop,
    HierarchicalOcclusion,
    Occlusion,
    RISEPlus,
    create,
    names,
)
from ms_tensor import Tensor


def _all(net, layer):
    sm = nn.Softmax()
    ood = nn.SequentialCell([nn.Flatten(), nn.Dense(int(np.prod(net._in)), 4), nn.Softmax()])
    return [Gradient(net), Deconvolution(net), GuidedBackprop(net), GradCAM(net, layer),
            Occlusion(net, sm), RISE(net, sm, num_masks=64, seed=3),
            RISEPlus(ood, net, sm, num_masks=64, seed=3)]


@pytest.mark.parametrize("which", ["lenet", "small_cnn"])
def test_every_explainer_gives_input_sized_deterministic_maps(which, request, rng):
    net = request.getfixturevalue(which)
    shape = (2, 1, 32, 32) if which == "lenet" else (2, 3, 12, 12)
    net._in = shape[1:]
    x = Tensor(rng.random(shape).astype(np.float32))
    for explainer in _all(net, "conv2"):
        a = explainer(x, [1, 3]).asnumpy()
        b = explainer(x, Tensor(np.array([1, 3], np.int32))).asnumpy()
        assert a.shape == (2, 1) + shape[2:], explainer.name
        assert a.dtype == np.float32 and np.isfinite(a).all(), explainer.name
        np.testing.assert_array_equal(a, b, err_msg=explainer.name)
        assert a.max() > 0, explainer.name


def test_gradient_equals_finite_differences(lenet, rng):
    x = rng.random((1, 1, 32, 32)).astype(np.float64)
    target = 4
    sal = Gradient(lenet)(x.astype(np.float32), target).asnumpy()[0, 0]
    eps = 1e-3  # small enough that no ReLU or max-pool switches inside the step
    pixels = [(r, c) for r, c in rng.integers(0, 32, (24, 2))]
    batch = []
    for r, c in pixels:
        for sign in (1, -1):
            y = x.copy()
            y[0, 0, r, c] += sign * eps
            batch.append(y[0])
    out = lenet(Tensor(np.asarray(batch, np.float32))).asnumpy()[:, target].astype(np.float64)
    fd = np.abs((out[0::2] - out[1::2]) / (2 * eps))
    ours = np.array([sal[r, c] for r, c in pixels])
    np.testing.assert_allclose(ours, fd, rtol=2e-2, atol=2e-3 * max(fd.max(), 1e-6))


def test_modified_relus_differ_from_gradient_and_leave_the_network_as_it_was(lenet, rng):
    x = rng.random((1, 1, 32, 32)).astype(np.float32)
    before = Gradient(lenet)(x, 2).asnumpy()
    deconv = Deconvolution(lenet)(x, 2).asnumpy()
    guided = GuidedBackprop(lenet)(x, 2).asnumpy()
    assert not np.allclose(deconv, before) and not np.allclose(guided, before)
    np.testing.assert_array_equal(Gradient(lenet)(x, 2).asnumpy(), before)


def test_gradcam_on_the_input_layer_is_input_times_gradient(lenet, rng):
    x = rng.random((1, 1, 32, 32)).astype(np.float32)
    grad = Gradient(lenet)._gradient(x, np.array([5]))
    expected = np.maximum((x * grad.mean(axis=(2, 3), keepdims=True)).sum(axis=1), 0)
    np.testing.assert_allclose(GradCAM(lenet)(x, 5).asnumpy()[:, 0], expected, rtol=1e-5)


def test_rise_with_several_labels_per_sample(lenet, rng):
    x = rng.random((2, 1, 32, 32)).astype(np.float32)
    rise = RISE(lenet, nn.Softmax(), num_masks=32, seed=0)
    both = rise(x, [[1, 2], [3, 4]]).asnumpy()
    assert both.shape == (2, 2, 32, 32)
    np.testing.assert_allclose(rise(x, [1, 3]).asnumpy()[:, 0], both[:, 0], rtol=1e-6)


def test_hierarchical_occlusion_shrinks_the_region_and_keeps_the_prediction(lenet, rng):
    x = rng.random((2, 1, 32, 32)).astype(np.float32)
    probs = nn.Softmax()(lenet(Tensor(x))).asnumpy()
    pred = probs.argmax(axis=1)
    threshold = float(probs.max(axis=1).min()) * 0.9
    hoc = HierarchicalOcclusion(lenet, nn.Softmax(), threshold=threshold)
    for res, p in zip(hoc(x, pred), pred):
        assert res.found and res.label == p
        region = np.ones((32, 32), bool)
        for step in res.steps:
            assert step.prob >= threshold
            assert not (step.mask & ~region).any()  # each step inside the previous one
            assert step.mask.sum() < region.sum()
            region = step.mask
        assert (res.mask == region).all() and res.masked_prob >= threshold
    too_high = HierarchicalOcclusion(lenet, nn.Softmax(), threshold=1.0)(x[:1], int(pred[0]))
    assert not too_high[0].found and not too_high[0].steps


def test_registry_lists_and_builds_the_explainers(lenet):
    assert {"Gradient", "Deconvolution", "GuidedBackprop", "GradCAM", "Occlusion", "RISE",
            "RISEPlus"} <= set(names())
    assert isinstance(create("GradCAM", lenet, layer="conv1"), GradCAM)
    with pytest.raises(ValueError, match="no explainer named 'Nope'"):
        create("Nope", lenet)


def test_microspore_xai_alias():
    import microspore_xai.benchmark as b
    import microspore_xai.explainer as e

    assert e.Gradient is Gradient and b.Faithfulness.__module__.startswith("ms_insight")
    from microspore_xai.tool.cv import OoDNet

    assert OoDNet.__module__ == "ms_insight.explainer.ood_net"


def test_bad_calls_are_clear_errors(lenet):
    x = np.zeros((2, 1, 32, 32), np.float32)
    with pytest.raises(ValueError, match=r"GradCAM: the network has no layer named 'conv9'.*"
                                         r"'conv1'"):
        GradCAM(lenet, "conv9")
    with pytest.raises(ValueError, match=r"Gradient: inputs must be 4D .* got shape \(1, 32, 32\)"):
        Gradient(lenet)(x[0], 1)
    with pytest.raises(ValueError, match="targets must have length 2"):
        Gradient(lenet)(x, [1, 2, 3])
    with pytest.raises(ValueError, match=r"targets \[1, 10\] out of range for 10 classes"):
        Gradient(lenet)(x, [1, 10])
    with pytest.raises(TypeError, match="targets must be integers"):
        Gradient(lenet)(x, [1.5, 2.0])
    with pytest.raises(ValueError, match="perturbation_per_eval must be a positive int"):
        Occlusion(lenet, nn.Softmax(), perturbation_per_eval=0)
    with pytest.raises(ValueError, match="Gradient: ret must be 'tensor' or 'image'"):
        Gradient(lenet)(x, 1, ret="picture")
    with pytest.raises(TypeError, match="GradCAM: show must be None or a bool"):
        GradCAM(lenet, "conv2")(x, 1, show="yes")


@pytest.mark.parametrize("which", ["lenet", "small_cnn"])
def test_graph_mode_gives_the_same_maps(which, request, rng):
    """GRAPH_MODE: every explainer's maps equal PyNative's. The hooked ones run their own
    compiled graphs (hooks inside), leaving the network's own graph (compiled first, without
    hooks, as the user runs it) untouched: Gradient after them is still the plain one."""
    from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, set_context

    net = request.getfixturevalue(which)
    shape = (2, 1, 32, 32) if which == "lenet" else (2, 3, 12, 12)
    x = rng.random(shape).astype(np.float32)
    sm = nn.Softmax()

    def made():  # the perturbation ones on the small input only (LeNet5: 900 windows)
        perturbing = [Occlusion(net, sm), RISE(net, sm, num_masks=32, seed=0)] \
            if which == "small_cnn" else []
        return [Gradient(net), Deconvolution(net), GuidedBackprop(net), GradCAM(net, "conv2"),
                *perturbing, Gradient(net)]

    eager = [e(x, [1, 2]).asnumpy() for e in made()]
    set_context(mode=GRAPH_MODE)
    try:
        net(Tensor(x))  # the network's own graph, compiled without any hook
        explainers = made()
        for e, want in zip(explainers, eager):
            for _ in range(2):  # compiling, then replaying the graph
                np.testing.assert_allclose(e(x, [1, 2]).asnumpy(), want, rtol=1e-5,
                                           atol=1e-7, err_msg=e.name)
        for e in explainers[1:4]:
            assert all(f.graphs() for f in e._compiled.values()), e.name
    finally:
        set_context(mode=PYNATIVE_MODE)
    assert not np.allclose(eager[1], eager[0]) and not np.allclose(eager[2], eager[0])


class _Blank(Gradient):
    """A third party's explainer: the input's own magnitude."""

    def __call__(self, inputs, targets, ret="tensor", show=None):
        x, _ = self._check_call(inputs, targets, ret, show)
        return Tensor(np.abs(x).max(axis=1, keepdims=True))


class _ThirdParty:
    from ms_tensor.hookspecs import hookimpl

    @hookimpl
    def ms_register_explainers(self, registry):
        registry.add_explainer("InputMagnitude", _Blank)


def test_a_plugin_adds_an_explainer_through_the_hook(lenet):
    from ms_tensor import registry

    registry.register_plugin(_ThirdParty(), "third-party-xai")
    try:
        assert "InputMagnitude" in names()
        entry = registry.load().entry("explainer", "InputMagnitude")
        assert entry.plugin == "third-party-xai"
        x = np.full((1, 1, 32, 32), -2.0, np.float32)
        assert (create("InputMagnitude", lenet)(x, 0).asnumpy() == 2.0).all()
    finally:
        registry.unregister_plugin("third-party-xai")
    assert "InputMagnitude" not in names()


def test_oodnet_trains_and_weights_riseplus(rng):
    from ms_insight.explainer.ood_net import OoDNet
    from ms_insight.explainer.testing import LeNet5, digits_in_noise, load_weights, random_weights

    class Features(LeNet5):
        num_features, output_features = 84, False

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.flatten(self.max_pool2d(self.relu(self.conv2(x))))
            x = self.relu(self.fc2(self.relu(self.fc1(x))))
            return x if self.output_features else self.fc3(x)

    net = load_weights(Features(4), random_weights(Features(4), 0))
    ood = OoDNet(net, 4)
    x, y, _ = digits_in_noise(64, seed=2)
    before = ood(x[:4]).asnumpy()
    assert before.shape == (4, 4) and (np.abs(before) <= 1 + 1e-5).all()  # cosines
    batches = [(Tensor(x[i:i + 16]), Tensor(y[i:i + 16])) for i in range(0, 64, 16)]
    ood.train(batches, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
              epoch=1, learning_rate=0.01)
    assert not ood.training and not net.output_features
    assert not np.allclose(ood(x[:4]).asnumpy(), before)
    plus = RISEPlus(ood, net, nn.Softmax(), num_masks=32, seed=0)
    assert plus(x[:2], y[:2].tolist()).shape == (2, 1, 32, 32)
    with pytest.raises(AttributeError, match="needs num_features"):
        OoDNet(LeNet5(), 10)
