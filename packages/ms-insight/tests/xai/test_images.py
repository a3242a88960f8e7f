"""``ret="image"`` and ``show`` (MindSpore XAI's options): viridis pictures of the
normalized maps, one list per sample; shown only when asked or inside a notebook."""

import matplotlib
import numpy as np
import pytest
from PIL import Image

import ms_nn as nn
from ms_insight.explainer import RISE, Gradient, images

matplotlib.use("Agg")

VIRIDIS_LOW, VIRIDIS_HIGH = (68, 1, 84), (253, 231, 36)  # viridis(0), viridis(1)


def test_ret_image_gives_a_picture_per_sample_and_label(lenet, rng):
    x = rng.random((2, 1, 32, 32)).astype(np.float32)
    saliency = Gradient(lenet)(x, [1, 2]).asnumpy()
    pictures = Gradient(lenet)(x, [1, 2], ret="image")
    assert len(pictures) == 2 and all(len(row) == 1 for row in pictures)
    for sal, (picture,) in zip(saliency, pictures):
        assert isinstance(picture, Image.Image) and picture.mode == "RGB"
        assert picture.size == (32, 32)
        pixels = np.asarray(picture)
        assert tuple(pixels[np.unravel_index(sal[0].argmax(), sal[0].shape)]) == VIRIDIS_HIGH
        assert tuple(pixels[np.unravel_index(sal[0].argmin(), sal[0].shape)]) == VIRIDIS_LOW
    rise = RISE(lenet, nn.Softmax(), num_masks=8, seed=0)
    several = rise(x, np.array([[1, 2, 3], [4, 5, 6]]), ret="image")
    assert [len(row) for row in several] == [3, 3]


def test_a_constant_map_is_left_unnormalized():
    (picture,), = images.saliency_images(np.zeros((1, 1, 3, 3), np.float32))
    assert (np.asarray(picture) == VIRIDIS_LOW).all()


def test_show_draws_one_picture_with_pil_and_several_in_a_figure(lenet, rng, monkeypatch):
    import matplotlib.pyplot as plt

    shown = []
    monkeypatch.setattr(Image.Image, "show", lambda self, *a, **k: shown.append(self.size))
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(
        [ax.get_title() for ax in plt.gcf().axes]))
    x = rng.random((5, 1, 32, 32)).astype(np.float32)
    gradient = Gradient(lenet)
    out = gradient(x[:1], 1, show=True)
    assert shown == [(32, 32)] and out.shape == (1, 1, 32, 32)  # still the Tensor
    gradient(x, [1, 2, 3, 4, 5], show=True)
    assert shown[1] == [f"[{i}][0]" for i in range(5)]
    assert plt.gcf().axes[4].get_subplotspec().get_geometry()[:2] == (2, 4)  # 4 a row
    plt.close("all")
    rise = RISE(lenet, nn.Softmax(), num_masks=8, seed=0)
    pictures = rise(x[:2], np.array([[1, 2], [3, 4]]), ret="image", show=True)
    assert shown[2] == ["[0][0]", "[0][1]", "[1][0]", "[1][1]"] and len(pictures) == 2
    plt.close("all")
    gradient(x, [1, 2, 3, 4, 5])  # show=None outside a notebook: nothing drawn
    gradient(x[:1], 1, show=False)
    assert len(shown) == 3


def test_show_none_draws_inside_a_notebook(monkeypatch):
    import sys
    import types

    class ZMQInteractiveShell:
        pass

    fake = types.SimpleNamespace(get_ipython=lambda: ZMQInteractiveShell())
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert images.in_notebook()
    shown = []
    monkeypatch.setattr(Image.Image, "show", lambda self, *a, **k: shown.append(1))
    out = images.finish(np.ones((1, 1, 2, 2), np.float32), "tensor", None)
    assert shown == [1] and out.shape == (1, 1, 2, 2)
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: None))
    assert not images.in_notebook()


def test_metrics_never_show_even_in_a_notebook(lenet, rng, monkeypatch):
    """As in MindSpore XAI, the metrics call explainers with show=False."""
    from ms_insight.benchmark import ClassSensitivity, Faithfulness

    monkeypatch.setattr(images, "in_notebook", lambda: True)
    shown = []
    monkeypatch.setattr(images, "show_images", lambda pictures: shown.append(1))
    x = rng.random((1, 1, 32, 32)).astype(np.float32)
    Gradient(lenet)(x, 1)
    assert shown == [1]  # the notebook default
    Faithfulness(10, nn.Softmax(), "InsertionAUC").evaluate(Gradient(lenet), x, 1)
    ClassSensitivity().evaluate(Gradient(lenet), x)
    assert shown == [1]


@pytest.mark.parametrize("ret, show, error", [("Tensor", None, ValueError),
                                               (None, None, ValueError),
                                               ("tensor", 1, TypeError)])
def test_bad_options_raise(lenet, ret, show, error):
    with pytest.raises(error, match="Gradient: (ret|show) must be"):
        Gradient(lenet)(np.zeros((1, 1, 32, 32), np.float32), 1, ret=ret, show=show)
