"""``ret="image"`` and ``show``: saliency maps as pictures, as MindSpore XAI makes them.

Each ``(H, W)`` map is min-max normalized and coloured with matplotlib's viridis (XAI's
``np_saliency_to_image``: RGBA with the saliency as opacity, then converted to RGB, which
drops the opacity). ``show`` draws them: one picture with PIL's viewer, several in a
matplotlib figure of at most four per row, titled ``[sample][label]``; ``show=None``
shows them only inside a Jupyter notebook.
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["check_ret_show", "finish", "saliency_images", "show_images", "in_notebook"]

_PER_ROW = 4


def check_ret_show(who: str, ret, show) -> None:
    """XAI's checks of the two options, with the explainer's name."""
    if not isinstance(ret, str) or ret not in ("tensor", "image"):
        raise ValueError(f"{who}: ret must be 'tensor' or 'image', got {ret!r}")
    if show is not None and not isinstance(show, bool):
        raise TypeError(f"{who}: show must be None or a bool, got {type(show).__name__}")


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython already imported by it)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def _normalized(saliency: np.ndarray) -> np.ndarray:
    lo, hi = saliency.min(), saliency.max()
    if not np.isfinite(lo) or not np.isfinite(hi) or hi <= lo:
        return saliency
    return (saliency - lo) / (hi - lo)


def saliency_images(saliency: np.ndarray) -> list:
    """``(N, L, H, W)`` maps as ``N`` lists of ``L`` RGB ``PIL.Image`` pictures.

    >>> pictures = saliency_images(np.linspace(0, 1, 8, dtype=np.float32).reshape(1, 1, 2, 4))
    >>> pictures[0][0].size, pictures[0][0].mode, pictures[0][0].getpixel((0, 0))
    ((4, 2), 'RGB', (68, 1, 84))
    """
    from matplotlib import colormaps
    from PIL import Image

    viridis = colormaps["viridis"]
    out = []
    for sample in np.asarray(saliency, np.float32):
        row = []
        for label_map in sample:
            rgba = viridis(_normalized(label_map))
            pixels = np.clip(rgba[..., :3] * 255, 0, 255).astype(np.uint8)
            row.append(Image.fromarray(pixels, mode="RGB"))
        out.append(row)
    return out


def show_images(images: list) -> None:
    """Draw ``saliency_images``' pictures (XAI's layout)."""
    if len(images) == 1 and len(images[0]) == 1:
        images[0][0].show()
        return
    import matplotlib.pyplot as plt

    labels = len(images[0])
    cols = min(len(images) if labels == 1 else labels, _PER_ROW)
    rows_per_sample = -(-labels // cols)
    fig = plt.figure()
    for i, sample in enumerate(images):
        for j, picture in enumerate(sample):
            index = (i + 1 if labels == 1 else i * rows_per_sample * cols + j + 1)
            rows = (-(-len(images) // cols) if labels == 1
                    else len(images) * rows_per_sample)
            ax = fig.add_subplot(rows, cols, index)
            ax.imshow(picture)
            ax.set_title(f"[{i}][{j}]")
            ax.axis("off")
    plt.show()


def finish(saliency: np.ndarray, ret: str, show):
    """What an explainer returns: the maps as a Tensor, or (``ret="image"``) as pictures;
    shown first where ``show`` says so."""
    from ms_insight.explainer._common import to_tensor

    if show is None:
        show = in_notebook()
    if ret == "tensor" and not show:
        return to_tensor(saliency)
    images = saliency_images(saliency)
    if show:
        show_images(images)
    return images if ret == "image" else to_tensor(saliency)
