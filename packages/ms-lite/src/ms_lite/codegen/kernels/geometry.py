"""Window geometry of convolutions and poolings from MindSpore's attributes, shared by
the float32 and int8 templates (the same arithmetic as ms-ops' CPU kernels)."""

from __future__ import annotations

__all__ = ["pair", "conv_geometry", "pool_geometry"]


def pair(name: str, v) -> tuple[int, int]:
    """``k`` or ``(k, k)`` or MindSpore's 4-tuple ``(1, 1, kh, kw)`` -> ``(kh, kw)``."""
    if isinstance(v, int):
        return v, v
    v = tuple(v)
    if len(v) == 2:
        return int(v[0]), int(v[1])
    if len(v) == 4:
        return int(v[2]), int(v[3])
    raise ValueError(f"{name} must be an int or a pair, got {v!r}")


def _pads(pad) -> tuple[int, int, int, int]:
    if isinstance(pad, int):
        return pad, pad, pad, pad
    pad = tuple(pad)
    return pad if len(pad) == 4 else (pad[0], pad[0], pad[1], pad[1])


def conv_geometry(x_shape, w_shape, attrs) -> dict:
    """Fields of one NCHW convolution: sizes, strides, dilations, leading pads, groups."""
    n, c, h, w = x_shape
    kh, kw = int(w_shape[2]), int(w_shape[3])
    sh, sw = pair("stride", attrs.get("stride", 1))
    dh, dw = pair("dilation", attrs.get("dilation", 1))
    mode = str(attrs.get("pad_mode", "valid")).lower()
    pt, pb, pl, pr = _pads(attrs.get("pad", 0)) if mode == "pad" else (0, 0, 0, 0)
    if attrs.get("pad_list") is not None and any(_pads(attrs["pad_list"])):
        mode, (pt, pb, pl, pr) = "pad", _pads(attrs["pad_list"])
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    if mode == "same":
        oh, ow = -(-h // sh), -(-w // sw)
        ph, pw = max(0, (oh - 1) * sh + ekh - h), max(0, (ow - 1) * sw + ekw - w)
        pt, pl = ph // 2, pw // 2
    else:
        oh, ow = (h + pt + pb - ekh) // sh + 1, (w + pl + pr - ekw) // sw + 1
    return {"N": n, "C": c, "H": h, "W": w, "OC": int(w_shape[0]), "OH": oh, "OW": ow,
            "KH": kh, "KW": kw, "SH": sh, "SW": sw, "DH": dh, "DW": dw, "PT": pt, "PL": pl,
            "G": int(attrs.get("group", 1))}


def pool_geometry(x_shape, out_shape, attrs) -> dict:
    """Fields of one NCHW pooling window (MaxPool/AvgPool, pad_mode VALID or SAME)."""
    n, c, h, w = x_shape
    kh, kw = pair("kernel_size", attrs.get("kernel_size", 1))
    sh, sw = pair("strides", attrs.get("strides", attrs.get("stride", 1)))
    oh, ow = out_shape[2], out_shape[3]
    pt = pl = 0
    if str(attrs.get("pad_mode", "VALID")).upper() == "SAME":
        pt = max(0, (oh - 1) * sh + kh - h) // 2
        pl = max(0, (ow - 1) * sw + kw - w) // 2
    return {"N": n, "C": c, "H": h, "W": w, "OH": oh, "OW": ow, "KH": kh, "KW": kw,
            "SH": sh, "SW": sw, "PT": pt, "PL": pl}
