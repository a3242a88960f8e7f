"""TensorBoard ``Summary.Value`` protos for the four kinds of summary data.

The protos are tensorboard's own (``tensorboard.compat.proto``), so the files we write
are exactly what TensorBoard reads; this module only turns arrays into them: a scalar,
an image grid encoded as PNG (Pillow), a histogram (numpy's bucketing) and a tensor
(tensorboard's ``make_tensor_proto``).
"""

from __future__ import annotations

import io

import numpy as np

__all__ = ["KINDS", "recordable", "check_value", "make_value", "image_grid", "histogram_proto"]

KINDS = ("scalar", "image", "histogram", "tensor")


def _summary_pb2():
    from tensorboard.compat.proto import summary_pb2

    return summary_pb2


def recordable(array) -> np.ndarray:
    """``array`` as numpy can encode it: bfloat16 (an ml_dtypes type of kind "V", which
    TensorBoard's protos do not know) widens to float32; anything else is kept as it is."""
    array = np.asarray(array)
    # dtype.kind, not dtype.name: the name is computed in Python on every read (~10 us)
    return array.astype(np.float32) if array.dtype.kind == "V" else array


def check_value(kind: str, tag: str, array: np.ndarray) -> None:
    """Raise ValueError (naming ``tag``, ``kind`` and the shape) if ``array`` cannot be
    recorded as ``kind``; cheap: nothing is encoded."""
    if kind == "scalar" and array.size != 1:
        raise ValueError(f"summary {tag!r}: a scalar must have one element, got shape "
                         f"{array.shape}")
    if kind == "image" and (array.ndim != 4 or array.shape[1] not in (1, 3, 4)
                            or 0 in array.shape):
        raise ValueError(f"summary {tag!r}: an image must be a non-empty 4-D NCHW array with "
                         f"1, 3 or 4 channels, got shape {array.shape}")
    if kind == "histogram" and array.size == 0:
        raise ValueError(f"summary {tag!r}: a histogram needs at least one value, got shape "
                         f"{array.shape}")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"summary {tag!r}: {kind} values must be numbers, got dtype "
                         f"{array.dtype}")


def make_value(kind: str, tag: str, array: np.ndarray):
    """The ``Summary.Value`` of ``array`` recorded as ``kind`` under ``tag``.

    Raises:
        ValueError: the array does not fit the kind (a scalar of several elements, an
            image that is not 4-D NCHW with 1, 3 or 4 channels, an empty histogram);
            the message names the tag, the kind and the shape.
    """
    pb = _summary_pb2()
    if kind not in KINDS:
        raise ValueError(f"summary {tag!r}: unknown kind {kind!r}; expected one of {KINDS}")
    check_value(kind, tag, array)
    if kind == "scalar":
        return pb.Summary.Value(tag=tag, simple_value=float(array.reshape(())))
    if kind == "image":
        return pb.Summary.Value(tag=tag, image=_image_proto(tag, array))
    if kind == "histogram":
        return pb.Summary.Value(tag=tag, histo=histogram_proto(tag, array))
    from tensorboard.util.tensor_util import make_tensor_proto

    return pb.Summary.Value(tag=tag, tensor=make_tensor_proto(np.ascontiguousarray(array)))


def image_grid(tag: str, array: np.ndarray) -> np.ndarray:
    """A batch of NCHW images tiled into one HWC uint8 canvas (MindSpore's layout).

    Floats in [0, 1] are scaled by 255; other floats are stretched to [0, 255]; integer
    images are clipped to [0, 255].
    """
    check_value("image", tag, array)
    n, c, h, w = array.shape
    if array.dtype.kind == "f":
        a = np.nan_to_num(array.astype(np.float64))
        lo, hi = a.min(), a.max()
        if lo < 0 or hi > 1:
            a = (a - lo) / (hi - lo) if hi > lo else np.zeros_like(a)
        a = np.round(a * 255)
    else:
        a = array
    a = np.clip(a, 0, 255).astype(np.uint8)
    cols = int(np.ceil(np.sqrt(n)))
    rows = -(-n // cols)
    canvas = np.zeros((rows * h, cols * w, c), np.uint8)
    for k in range(n):
        r, q = divmod(k, cols)
        canvas[r * h:(r + 1) * h, q * w:(q + 1) * w] = a[k].transpose(1, 2, 0)
    return canvas


def _image_proto(tag: str, array: np.ndarray):
    from PIL import Image

    canvas = image_grid(tag, array)
    buf = io.BytesIO()
    # Pillow infers the mode: L for 2-D uint8, RGB / RGBA for 3 / 4 channels.
    Image.fromarray(canvas[:, :, 0] if canvas.shape[2] == 1 else canvas).save(buf, "PNG")
    return _summary_pb2().Summary.Image(height=canvas.shape[0], width=canvas.shape[1],
                                        colorspace=canvas.shape[2],
                                        encoded_image_string=buf.getvalue())


def histogram_proto(tag: str, array: np.ndarray, bins: int = 30):
    """A ``HistogramProto`` of the finite values of ``array`` over ``bins`` equal buckets."""
    a = np.asarray(array, dtype=np.float64).ravel()
    a = a[np.isfinite(a)]
    if a.size == 0:
        raise ValueError(f"summary {tag!r}: a histogram needs at least one finite value")
    counts, edges = np.histogram(a, bins=bins if a.min() < a.max() else 1)
    return _summary_pb2().HistogramProto(
        min=float(a.min()), max=float(a.max()), num=float(a.size), sum=float(a.sum()),
        sum_squares=float(np.dot(a, a)), bucket_limit=[float(e) for e in edges[1:]],
        bucket=[float(c) for c in counts])
