"""Records vision_mindspore210.npz: run with MindSpore 2.10 installed (``python this.py``).

The test module repeats the same calls on microspore and compares with the recorded outputs.
"""

import numpy as np

PTS = ([[0, 0], [8, 0], [8, 6], [0, 6]], [[1, 1], [7, 0], [8, 5], [0, 6]])
PTS_W = ([[0, 0], [47, 0], [47, 29], [0, 29]], [[2, 1], [45, 0], [47, 27], [1, 29]])
PTS_B = ([[0, 0], [19, 0], [19, 15], [0, 15]], [[1, 2], [18, 0], [19, 13], [2, 15]])


def cases(V, T, IMG, G, F, B, W):
    from mindspore.dataset.vision import Border, Inter

    eye = np.eye(6, dtype=np.float32) * 2
    return {
        "bright": (V.AdjustBrightness(1.7), IMG), "bright2": (V.AdjustBrightness(0.4), IMG),
        "contrast": (V.AdjustContrast(1.6), IMG), "contrast2": (V.AdjustContrast(0.3), IMG),
        "sat": (V.AdjustSaturation(1.5), IMG), "sat2": (V.AdjustSaturation(0.2), IMG),
        "hue": (V.AdjustHue(0.2), IMG), "hue2": (V.AdjustHue(-0.35), IMG),
        "gamma": (V.AdjustGamma(0.5, 1.2), IMG), "gamma2": (V.AdjustGamma(2.2), IMG),
        "sharp": (V.AdjustSharpness(2.0), IMG), "sharp2": (V.AdjustSharpness(0.3), IMG),
        "autoc": (V.AutoContrast(), IMG), "autoc2": (V.AutoContrast(10.0, [5]), IMG),
        "equal": (V.Equalize(), IMG), "equalg": (V.Equalize(), G),
        "invert": (V.Invert(), IMG), "post": (V.Posterize(3), IMG),
        "sol": (V.Solarize(100), IMG), "sol2": (V.Solarize((50, 150)), IMG),
        "rgb2hsv": (V.RgbToHsv(is_hwc=True), F), "hsv2rgb": (V.HsvToRgb(is_hwc=True), F),
        "crop": (V.Crop((1, 2), (4, 5)), IMG),
        "rcrop": (V.ResizedCrop(1, 2, 4, 5, (6, 8)), IMG),
        "padts": (V.PadToSize((10, 12)), IMG),
        "padts2": (V.PadToSize((10, 12), (1, 2), 7, Border.REFLECT), IMG),
        "rot30": (V.Rotate(30), IMG), "rot30b": (V.Rotate(30, Inter.BILINEAR), IMG),
        "rot45e": (V.Rotate(45, expand=True), IMG), "rot90e": (V.Rotate(90, expand=True), IMG),
        "affine": (V.Affine(15, (0.5, -0.3), 1.2, (5.0, 3.0)), IMG),
        "affineb": (V.Affine(-20, (0, 0), 0.8, 10.0, Inter.BILINEAR, 9), IMG),
        "persp": (V.Perspective(*PTS, Inter.BILINEAR), IMG),
        "perspn": (V.Perspective(*PTS, Inter.NEAREST), IMG),
        "gblur": (V.GaussianBlur(3, 1.0), IMG),
        "gblur2": (V.GaussianBlur((5, 3), (1.5, 0.7)), IMG),
        "gblur3": (V.GaussianBlur(3), IMG),
        "erase": (V.Erase(1, 2, 3, 4, (10, 20, 30)), IMG),
        "normpad": (V.NormalizePad([121.0, 115.0, 100.0], [70.0, 68.0, 71.0]), IMG),
        "normpad16": (V.NormalizePad([121.0, 115.0, 100.0], [70.0, 68.0, 71.0], "float16"), IMG),
        "lintr": (V.LinearTransformation(eye, np.ones(6, np.float32)),
                  np.arange(6, dtype=np.float32).reshape(1, 2, 3)),
        "totype": (V.ToType(np.float32), IMG),
        "padend": (T.PadEnd([5], 9), np.array([1, 2, 3])),
        "padend2": (T.PadEnd([3, 4], -1), np.ones((2, 2), np.int32)),
        "sol90": (V.Solarize((90, 90)), IMG), "gammaf": (V.AdjustGamma(0.5, 1.2), F),
        "rotf": (V.Rotate(30, Inter.BILINEAR), F), "affg": (V.Affine(15, (0.1, 0.1), 1.1, 5.0), G),
        "blurf": (V.GaussianBlur(3, 1.0), F), "autocg": (V.AutoContrast(), G),
        "invf": (V.Invert(), F), "brightf": (V.AdjustBrightness(1.5), F),
        "contrastf": (V.AdjustContrast(1.5), F), "satf": (V.AdjustSaturation(1.5), F),
        "sharpf": (V.AdjustSharpness(1.5), F), "solf": (V.Solarize(0.5), F),
        "perspf": (V.Perspective(*PTS), F), "rot2d": (V.Rotate(30), G),
        "blur2d": (V.GaussianBlur(3), G), "sharp2d": (V.AdjustSharpness(2.0), G),
        "bright2d": (V.AdjustBrightness(1.5), G), "gamma2d": (V.AdjustGamma(2.0), G),
        "pad2d": (V.PadToSize((9, 10)), G), "crop2d": (V.Crop((1, 1), 3), G),
        "cubic_rot": (V.Rotate(30, Inter.BICUBIC), B),
        "cubic_aff": (V.Affine(10, (0.1, 0), 0.9, 5.0, Inter.BICUBIC), B),
        "cubic_rotf": (V.Rotate(17, Inter.BICUBIC), F),
        "cubic_persp": (V.Perspective(*PTS_B, Inter.BICUBIC), B),
        "area_rot": (V.Rotate(30, Inter.AREA), B), "linear_rot": (V.Rotate(30, Inter.BILINEAR), B),
        # rows wider than OpenCV's 32-pixel vector blocks take its vector code paths
        "hue_wide": (V.AdjustHue(0.1), W), "sat_wide": (V.AdjustSaturation(1.2), W),
        "contrast_wide": (V.AdjustContrast(0.9), W), "sharp_wide": (V.AdjustSharpness(1.3), W),
        "gray_wide": (V.ConvertColor(V.ConvertMode.COLOR_RGB2GRAY), W),
        "autoc_wide": (V.AutoContrast(5.0), W), "gamma_wide": (V.AdjustGamma(0.6, 1.1), W),
    }


def pil_cases(V):
    """Transforms MindSpore runs through Pillow when given a PIL image."""
    return {
        "pil_resize": V.Resize((20, 25)), "pil_resize_int": V.Resize(20),
        "pil_resize_nearest": V.Resize((20, 25), V.Inter.NEAREST),
        "pil_resize_bicubic": V.Resize((50, 60), V.Inter.BICUBIC),
        "pil_resize_antialias": V.Resize((20, 25), V.Inter.ANTIALIAS),
        "pil_bright": V.AdjustBrightness(1.3), "pil_contrast": V.AdjustContrast(1.3),
        "pil_sat": V.AdjustSaturation(0.6), "pil_hue": V.AdjustHue(0.2),
        "pil_hue_neg": V.AdjustHue(-0.3), "pil_gray": V.Grayscale(), "pil_gray3": V.Grayscale(3),
        "pil_autoc": V.AutoContrast(2.0), "pil_equal": V.Equalize(), "pil_invert": V.Invert(),
        "pil_rrot": V.RandomRotation((30, 30)),
        "pil_rrot_exp": V.RandomRotation((20, 20), V.Inter.BILINEAR, True, None, (9, 8, 7)),
        "pil_rcolor": V.RandomColor((1.4, 1.4)), "pil_rsharp": V.RandomSharpness((1.6, 1.6)),
        "pil_persp": V.Perspective(*PTS_W, V.Inter.BILINEAR),
        "pil_persp_nearest": V.Perspective(*PTS_W, V.Inter.NEAREST),
        "pil_persp_bicubic": V.Perspective(*PTS_W, V.Inter.BICUBIC),
        "pil_center": V.CenterCrop((13, 21)), "pil_center_big": V.CenterCrop((33, 51)),
        "pil_raffine": V.RandomAffine((15, 15), None, (1.2, 1.2), (5, 5, 3, 3)),
        # MindSpore 2.10 ignores fill_value on this path (Pillow >= 10)
        "pil_raffine_fill": V.RandomAffine((-20, -20), None, (0.8, 0.8), (10, 10, -4, -4),
                                           V.Inter.BILINEAR, (9, 8, 7)),
    }


def pil_pipeline(ds, V, W):
    """A map whose images stay PIL between its operations (each takes its Pillow path)."""
    ops = [V.ToPIL(), V.Resize((20, 24)), V.AdjustContrast(1.3), V.AdjustHue(0.1),
           V.CenterCrop(16), V.Equalize(), V.ToTensor()]
    data = ds.NumpySlicesDataset({"image": W[None]}, shuffle=False).map(ops, "image")
    return next(data.create_dict_iterator(output_numpy=True))["image"]


def main():
    import mindspore.dataset.transforms as T
    import mindspore.dataset.vision as V

    rs = np.random.RandomState(0)
    IMG = rs.randint(0, 256, (7, 9, 3)).astype(np.uint8)
    G = rs.randint(0, 256, (7, 9)).astype(np.uint8)
    F = rs.rand(7, 9, 3).astype(np.float32)
    B = np.random.RandomState(5).randint(0, 256, (16, 20, 3)).astype(np.uint8)
    W = np.random.RandomState(6).randint(0, 256, (30, 48, 3)).astype(np.uint8)
    out = {k: np.asarray(op(x)) for k, (op, x) in cases(V, T, IMG, G, F, B, W).items()}
    pil = V.ToPIL()(IMG)  # FiveCrop and TenCrop take PIL images in MindSpore
    for k, op in {"five": V.FiveCrop(3), "ten": V.TenCrop((3, 4)),
                  "tenv": V.TenCrop(3, True)}.items():
        out[k] = np.stack([np.asarray(i) for i in op(pil)])
    for k, op in {"slice": V.SlicePatches(2, 2),
                  "slicedrop": V.SlicePatches(2, 4, V.SliceMode.DROP),
                  "slicefill": V.SlicePatches(3, 2, fill_value=5)}.items():
        patches = [np.asarray(i) for i in op(IMG)]
        out[k] = np.concatenate([p.ravel() for p in patches])
        out[k + "_shapes"] = np.array([p.shape for p in patches])
    for k, op in pil_cases(V).items():
        out[k] = np.asarray(op(V.ToPIL()(W)))
    import mindspore.dataset as ds

    out["pil_pipeline"] = pil_pipeline(ds, V, W)
    uniq = T.Unique()(np.array([[5, 3], [5, 1], [3, 3]]))  # MindSpore rejects 1-D input here
    out["uniq0"], out["uniq1"], out["uniq2"] = [np.asarray(i) for i in uniq]
    np.savez("vision_mindspore210.npz", IMG=IMG, G=G, F=F, B=B, W=W, **out)


if __name__ == "__main__":
    main()
