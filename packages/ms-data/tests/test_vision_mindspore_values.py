"""Vision transforms against outputs recorded from MindSpore 2.10 (CPU) on fixed inputs.

The constants were printed by MindSpore itself; MindSpore is not needed to run these tests.
uint8 bilinear resizing may differ by 1 where OpenCV's vectorised and scalar code paths
round differently; everything else is exact.
"""

import numpy as np
import pytest

from ms_data import vision as V
from ms_data.vision import ConvertMode, Inter

IMG = ((np.arange(5 * 6 * 3) * 37 + 11) % 256).astype(np.uint8).reshape(5, 6, 3)
RECT = ((np.arange(4 * 6) * 13) % 256).astype(np.uint8).reshape(4, 6, 1)

RESIZE = {('AREA', (3, 4)): [[75, 155, 152, 130], [117, 94, 160, 137], [159, 136, 116, 94]],
 ('AREA', (8, 9)): [[11, 67, 122, 233, 161, 88, 199, 127, 54],
                    [72, 77, 81, 192, 171, 150, 158, 137, 115],
                    [165, 93, 20, 131, 187, 242, 97, 153, 208],
                    [83, 113, 143, 49, 105, 160, 220, 173, 126],
                    [94, 124, 153, 60, 90, 119, 231, 158, 86],
                    [217, 145, 72, 183, 111, 38, 149, 77, 4],
                    [156, 160, 164, 122, 126, 130, 88, 92, 96],
                    [115, 171, 226, 81, 137, 192, 47, 103, 158]],
 ('BICUBIC', (3, 4)): [[64, 186, 141, 120], [93, 54, 182, 143], [161, 132, 124, 95]],
 ('BICUBIC', (8, 9)): [[0, 54, 162, 243, 156, 81, 201, 137, 25],
                       [87, 63, 83, 181, 194, 157, 146, 134, 127],
                       [178, 86, 23, 94, 205, 232, 114, 142, 219],
                       [79, 119, 123, 38, 101, 206, 216, 186, 150],
                       [97, 136, 145, 79, 57, 118, 238, 165, 41],
                       [226, 132, 77, 174, 107, 44, 152, 92, 0],
                       [173, 163, 148, 141, 129, 111, 87, 80, 84],
                       [94, 189, 225, 86, 139, 191, 52, 89, 184]],
 ('BILINEAR', (3, 4)): [[69, 171, 146, 120], [91, 65, 168, 142], [155, 130, 126, 100]],
 ('BILINEAR', (8, 9)): [[11, 66, 140, 214, 160, 106, 180, 126, 54],
                        [78, 78, 96, 170, 172, 155, 154, 138, 121],
                        [158, 94, 45, 109, 180, 214, 128, 154, 202],
                        [95, 110, 115, 72, 116, 177, 198, 170, 138],
                        [111, 126, 131, 88, 93, 126, 201, 146, 74],
                        [207, 143, 94, 157, 109, 63, 137, 83, 10],
                        [159, 159, 153, 131, 125, 119, 97, 91, 91],
                        [115, 170, 202, 105, 136, 168, 71, 102, 158]],
 ('NEAREST', (3, 4)): [[11, 122, 88, 199], [165, 20, 242, 97], [217, 72, 38, 149]],
 ('NEAREST', (8, 9)): [[11, 11, 122, 233, 233, 88, 199, 199, 54],
                       [11, 11, 122, 233, 233, 88, 199, 199, 54],
                       [165, 165, 20, 131, 131, 242, 97, 97, 208],
                       [165, 165, 20, 131, 131, 242, 97, 97, 208],
                       [63, 63, 174, 29, 29, 140, 251, 251, 106],
                       [217, 217, 72, 183, 183, 38, 149, 149, 4],
                       [217, 217, 72, 183, 183, 38, 149, 149, 4],
                       [115, 115, 226, 81, 81, 192, 47, 47, 158]],
 ('PILCUBIC', (3, 4)): [[70, 151, 165, 135], [122, 91, 159, 141], [162, 139, 110, 87]],
 ('PILCUBIC', (8, 9)): [[0, 55, 152, 238, 158, 85, 198, 128, 32],
                        [78, 68, 89, 185, 184, 152, 152, 134, 118],
                        [175, 92, 26, 104, 199, 231, 112, 149, 215],
                        [82, 115, 127, 46, 104, 193, 214, 180, 141],
                        [98, 130, 145, 75, 70, 120, 231, 155, 56],
                        [224, 140, 79, 173, 108, 45, 148, 82, 0],
                        [164, 163, 157, 133, 129, 121, 86, 85, 95],
                        [99, 178, 224, 87, 139, 190, 53, 98, 177]]}
RESIZE_2D_BILINEAR_7x3 = [[66, 160, 126], [81, 175, 141], [100, 157, 160], [119, 85, 179],
                          [137, 103, 105], [156, 122, 87], [170, 136, 102]]
RESIZE_F32 = [[0.1190476268529892, 0.20068028569221497, 0.3027210831642151, 0.4047619104385376,
  0.5068026781082153, 0.6088435649871826, 0.6904761791229248],
 [1.0714285373687744, 1.1530612707138062, 1.2551020383834839, 1.3571429252624512,
  1.4591835737228394, 1.5612244606018066, 1.6428570747375488],
 [2.0238094329833984, 2.1054420471191406, 2.2074830532073975, 2.309523820877075,
  2.411564588546753, 2.5136051177978516, 2.595237970352173]]
CENTERCROP_PAD = [[0, 0, 0, 0], [122, 233, 88, 199], [20, 131, 242, 97], [174, 29, 140, 251],
                  [72, 183, 38, 149], [226, 81, 192, 47], [0, 0, 0, 0]]
ROT90_RECT = [[0, 52, 130, 208, 30, 0], [0, 39, 117, 195, 17, 0], [0, 26, 104, 182, 4, 0],
 [0, 13, 91, 169, 247, 0]]
ROT90_EXPAND = [[65, 143, 221, 43], [52, 130, 208, 30], [39, 117, 195, 17], [26, 104, 182, 4],
 [13, 91, 169, 247], [0, 78, 156, 234]]
GRAY = [195, 50, 161, 93, 127, 209]
BGRGRAY = [209, 64, 175, 59, 141, 175]
TOTENSOR_PIX = [0.5490196347236633, 0.6941176652908325, 0.8392157554626465]
RESCALE_PIX_1_2 = [1.2431856393814087, 1.7141302824020386, 2.185075044631958]
NORMALIZE_PIX_1_2 = [0.14265336096286774, 0.7686675786972046, 1.4609484672546387]


@pytest.mark.parametrize(("mode", "size"), sorted(RESIZE))
def test_resize_modes_match_mindspore(mode, size):
    out = V.Resize(size, getattr(Inter, mode))(IMG)
    assert out.shape == (*size, 3) and out.dtype == np.uint8
    diff = np.abs(out[..., 0].astype(int) - np.array(RESIZE[mode, size]))
    assert diff.max() == 0


def test_resize_2d_and_float_and_int_size():
    out = V.Resize((7, 3))(IMG[..., 0])
    assert out.shape == (7, 3)
    np.testing.assert_array_equal(out, RESIZE_2D_BILINEAR_7x3)
    f = np.arange(20, dtype=np.float32).reshape(4, 5, 1) / 7
    np.testing.assert_allclose(V.Resize((3, 7))(f)[..., 0], RESIZE_F32, rtol=0, atol=1e-6)
    assert V.Resize(4)(IMG).shape == (4, 4, 3)  # shorter edge 5 -> 4, 6 * 4 / 5 -> 4
    assert V.Resize(3)(np.zeros((7, 5, 3), np.uint8)).shape == (4, 3, 3)


def test_rescale_twice_is_bit_exact():
    r = V.Rescale(1 / 0.3081, -0.1307 / 0.3081)(V.Rescale(1 / 255.0, 0.0)(IMG))
    assert r.dtype == np.float32
    assert [float(v) for v in r[1, 2]] == RESCALE_PIX_1_2


def test_normalize_and_totensor_are_bit_exact():
    n = V.Normalize([121.0, 115.5, 100.25], [70.1, 68.3, 71.7])(IMG)
    assert n.dtype == np.float32 and [float(v) for v in n[1, 2]] == NORMALIZE_PIX_1_2
    t = V.ToTensor()(IMG)
    assert t.shape == (3, 5, 6) and [float(v) for v in t[:, 2, 3]] == TOTENSOR_PIX


def test_center_crop_pads_when_larger():
    assert V.CenterCrop((7, 4))(IMG)[..., 0].tolist() == CENTERCROP_PAD


def test_rotation_90_about_centre():
    assert V.RandomRotation((90, 90))(RECT)[..., 0].tolist() == ROT90_RECT
    assert V.RandomRotation((90, 90), expand=True)(RECT)[..., 0].tolist() == ROT90_EXPAND


def test_gray_conversions():
    assert V.ConvertColor(ConvertMode.COLOR_RGB2GRAY)(IMG)[1].tolist() == GRAY
    assert V.ConvertColor(ConvertMode.COLOR_BGR2GRAY)(IMG)[1].tolist() == BGRGRAY
    assert V.Grayscale()(IMG)[1].tolist() == GRAY
