"""CocoDataset (Detection, Stuff, Keypoint) on a small COCO file; the expected rows were
printed by MindSpore 2.10 on the same file."""

import json

import numpy as np
import pytest
from PIL import Image

import ms_data as ds


@pytest.fixture
def coco(tmp_path):
    (tmp_path / "img").mkdir()
    for i, n in ((1, "a.jpg"), (2, "b.jpg"), (3, "c.jpg")):
        Image.fromarray(np.full((4, 6, 3), i * 50, np.uint8)).save(tmp_path / "img" / n)
    images = [{"id": 3, "file_name": "c.jpg"}, {"id": 1, "file_name": "a.jpg"},
              {"id": 2, "file_name": "b.jpg"}]
    anns = [{"id": 10, "image_id": 1, "category_id": 18, "bbox": [1.5, 2, 3, 4], "iscrowd": 0,
             "segmentation": [[1, 2, 3, 4, 5, 6], [9, 9, 8, 8]], "keypoints": [1, 2, 2, 0, 0, 0],
             "num_keypoints": 1},
            {"id": 11, "image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "iscrowd": 1,
             "segmentation": {"counts": [2, 3, 4, 15], "size": [4, 6]},
             "keypoints": [3, 3, 2, 4, 4, 1], "num_keypoints": 2},
            {"id": 12, "image_id": 3, "category_id": 1, "bbox": [2, 2, 2, 2], "iscrowd": 0,
             "segmentation": [[1, 1, 2, 2, 3, 3, 4, 4]], "keypoints": [0] * 6,
             "num_keypoints": 0}]
    cats = [{"id": 1, "name": "person"}, {"id": 18, "name": "dog"}]
    path = tmp_path / "ann.json"
    path.write_text(json.dumps({"images": images, "annotations": anns, "categories": cats}))
    return str(tmp_path / "img"), str(path)


def rows(d):
    return list(d.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_detection(coco):
    d = ds.CocoDataset(*coco, task="Detection", shuffle=False)
    assert d.get_col_names() == ["image", "bbox", "category_id", "iscrowd"]
    assert d.get_class_indexing() == {"person": [1], "dog": [18]}
    got = rows(d)  # b.jpg has no annotation: left out; the JSON's image order
    assert [r["bbox"].tolist() for r in got] == [[[2, 2, 2, 2]],
                                                  [[1.5, 2, 3, 4], [0, 0, 1, 1]]]
    assert got[1]["category_id"].tolist() == [[18], [1]]
    assert got[1]["iscrowd"].dtype == np.uint32 and got[1]["iscrowd"].tolist() == [[0], [1]]
    assert got[0]["image"].ndim == 1
    decoded = rows(ds.CocoDataset(*coco, shuffle=False, decode=True))
    assert decoded[0]["image"].shape == (4, 6, 3)


def test_stuff_and_keypoint(coco):
    got = rows(ds.CocoDataset(*coco, task="Stuff", shuffle=False))
    assert got[1]["segmentation"].dtype == np.float32
    assert got[1]["segmentation"].tolist() == [[1, 2, 3, 4, 5, 6], [9, 9, 8, 8, -1, -1],
                                               [2, 3, 4, 15, -1, -1]]
    assert got[1]["iscrowd"].tolist() == [[0], [1]]
    kp = rows(ds.CocoDataset(*coco, task="Keypoint", shuffle=False))
    assert kp[1]["keypoints"].tolist() == [[1, 2, 2, 0, 0, 0], [3, 3, 2, 4, 4, 1]]
    assert kp[1]["num_keypoints"].dtype == np.uint32 and kp[0]["num_keypoints"].tolist() == [[0]]
    with pytest.raises(NotImplementedError, match="Detection"):
        ds.CocoDataset(*coco, task="Stuff").get_class_indexing()


def test_errors(coco, tmp_path):
    images, ann = coco
    with pytest.raises(ValueError, match="Panoptic"):
        ds.CocoDataset(images, ann, task="Panoptic")
    with pytest.raises(ValueError, match="does not exist"):
        ds.CocoDataset(images, str(tmp_path / "none.json"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"images": [], "annotations": [{"id": 1, "image_id": 7}]}))
    with pytest.raises(Exception, match="bad.json.*image 7"):
        ds.CocoDataset(images, str(bad))
    bad.write_text("{not json")
    with pytest.raises(Exception, match="bad.json"):
        ds.CocoDataset(images, str(bad))
    (tmp_path / "img" / "a.jpg").unlink()
    with pytest.raises(Exception, match="a.jpg"):
        rows(ds.CocoDataset(images, ann, shuffle=False))
