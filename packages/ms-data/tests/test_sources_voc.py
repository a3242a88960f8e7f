"""VOCDataset on a small VOC tree; the expected rows were printed by MindSpore 2.10 on the
same tree."""

import numpy as np
import pytest
from PIL import Image

import ms_data as ds

OBJECTS = {"000001": [("dog", 48, 240, 195, 371, 0, 1), ("person", 8, 12, 352, 498, 1, 0)],
           "000002": [("train", 139, 200, 207, 301, 0, 0)],
           "000003": [("cat", 10, 20, 30, 40, 0, 0), ("dog", 1, 2, 3, 4, 1, 1),
                      ("cat", 5, 6, 7, 8, 0, 0)]}


@pytest.fixture
def voc(tmp_path):
    for d in ("Annotations", "JPEGImages", "ImageSets/Main", "ImageSets/Segmentation",
              "SegmentationClass"):
        (tmp_path / d).mkdir(parents=True)
    for name, objs in OBJECTS.items():
        xml = ["<annotation>", f"<filename>{name}.jpg</filename>"]
        for cls, x0, y0, x1, y1, diff, trunc in objs:
            xml.append(f"<object><name>{cls}</name><truncated>{trunc}</truncated>"
                       f"<difficult>{diff}</difficult><bndbox><xmin>{x0}</xmin>"
                       f"<ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>")
        (tmp_path / "Annotations" / f"{name}.xml").write_text("\n".join(xml + ["</annotation>"]))
        value = int(name[-1])
        Image.fromarray(np.full((4, 5, 3), value * 40, np.uint8)).save(
            tmp_path / "JPEGImages" / f"{name}.jpg")
        Image.fromarray(np.full((4, 5), value, np.uint8)).save(
            tmp_path / "SegmentationClass" / f"{name}.png")
    (tmp_path / "ImageSets/Main/train.txt").write_text("000002\n000001\n000003\n")
    (tmp_path / "ImageSets/Segmentation/train.txt").write_text("000003\n000001\n")
    return str(tmp_path)


def rows(d):
    return list(d.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_detection_rows_as_mindspore(voc):
    d = ds.VOCDataset(voc, task="Detection", usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "bbox", "label", "difficult", "truncate"]
    assert d.get_class_indexing() == {"cat": 0, "dog": 1, "person": 2, "train": 3}
    got = rows(d)
    assert [r["label"].ravel().tolist() for r in got] == [[3], [1, 2], [0, 1, 0]]
    r = got[1]
    assert r["bbox"].dtype == np.float32 and r["bbox"].tolist() == \
        [[48.0, 240.0, 147.0, 131.0], [8.0, 12.0, 344.0, 486.0]]
    assert r["label"].dtype == np.uint32 and r["label"].shape == (2, 1)
    assert r["difficult"].ravel().tolist() == [0, 1] and r["truncate"].ravel().tolist() == [1, 0]
    assert r["image"].dtype == np.uint8 and r["image"].ndim == 1  # the JPEG's bytes


def test_class_indexing_drops_other_classes_and_decode(voc):
    d = ds.VOCDataset(voc, task="Detection", shuffle=False, class_indexing={"dog": 1})
    got = rows(d)
    assert [r["bbox"].tolist() for r in got] == [[[48.0, 240.0, 147.0, 131.0]],
                                                  [[1.0, 2.0, 2.0, 2.0]]]
    decoded = rows(ds.VOCDataset(voc, task="Detection", shuffle=False, decode=True))
    assert decoded[0]["image"].shape == (4, 5, 3)
    assert abs(int(decoded[0]["image"][0, 0, 0]) - 80) <= 2


def test_segmentation_rows(voc):
    got = rows(ds.VOCDataset(voc, task="Segmentation", shuffle=False, decode=True))
    assert [int(r["target"][0, 0, 0]) for r in got] == [3, 1]
    assert got[0]["target"].shape == (4, 5, 3) and got[0]["image"].shape == (4, 5, 3)
    raw = rows(ds.VOCDataset(voc, task="Segmentation", shuffle=False))
    assert raw[0]["target"][:4].tolist() == [137, 80, 78, 71]  # the PNG signature


def test_errors_name_the_file(voc, tmp_path):
    with pytest.raises(ValueError, match="val.txt"):
        ds.VOCDataset(voc, task="Detection", usage="val")
    with pytest.raises(ValueError, match="task"):
        ds.VOCDataset(voc, task="Classification")
    with pytest.raises(ValueError, match="Detection"):
        ds.VOCDataset(voc, task="Segmentation", class_indexing={"dog": 1})
    (tmp_path / "Annotations" / "000002.xml").write_text("<annotation><object>")
    with pytest.raises(Exception, match="000002.xml"):
        ds.VOCDataset(voc, task="Detection")
    (tmp_path / "JPEGImages" / "000001.jpg").unlink()
    with pytest.raises(FileNotFoundError, match="000001.jpg"):
        ds.VOCDataset(voc, task="Segmentation")
