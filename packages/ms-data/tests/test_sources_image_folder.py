import io

import numpy as np
import pytest
from PIL import Image

from ms_data.sources.image_folder import ImageFolderDataset, list_image_folder
from ms_data.workers import PipelineError


def png(array):
    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def tree(tmp_path):
    images = {}
    for cls, n in (("dog", 2), ("cat", 1), ("zebra", 1)):
        (tmp_path / cls).mkdir()
        for i in range(n):
            array = np.full((4, 5 + i, 3), 10 * i + sum(map(ord, cls)) % 100, np.uint8)
            (tmp_path / cls / f"{i}.png").write_bytes(png(array))
            images[f"{cls}/{i}.png"] = array
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    (tmp_path / "readme.md").write_text("a file beside the class folders is ignored")
    return tmp_path, images


def rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_listing_follows_mindspore_order(tree):
    root, _ = tree
    paths, labels = list_image_folder(str(root))
    names = [p[len(str(root)) + 1:] for p in paths]
    assert names == ["cat/0.png", "cat/notes.txt", "dog/0.png", "dog/1.png", "zebra/0.png"]
    assert labels.dtype == np.int32 and labels.tolist() == [0, 0, 1, 1, 2]
    paths, _ = list_image_folder(str(root), extensions=[".png"])
    assert len(paths) == 4


def test_class_indexing_keeps_only_named_folders(tree):
    root, _ = tree
    paths, labels = list_image_folder(str(root), class_indexing={"dog": 5, "zebra": 1})
    assert labels.tolist() == [5, 5, 1]
    with pytest.raises(ValueError, match="horse"):
        list_image_folder(str(root), class_indexing={"horse": 0})


def test_images_are_encoded_bytes_by_default(tree):
    root, images = tree
    got = rows(ImageFolderDataset(str(root), extensions=[".png"], shuffle=False))
    assert [int(r["label"]) for r in got] == [0, 1, 1, 2]
    first = got[0]["image"]
    assert first.dtype == np.uint8 and first.ndim == 1
    assert first.tobytes() == (root / "cat" / "0.png").read_bytes()
    assert got[0]["label"].dtype == np.int32


def test_decode_gives_rgb_hwc(tree):
    root, images = tree
    got = rows(ImageFolderDataset(str(root), extensions=[".png"], decode=True, shuffle=False))
    np.testing.assert_array_equal(got[2]["image"], images["dog/1.png"])
    assert got[2]["image"].shape == (4, 6, 3)


def test_decode_gray_png_becomes_rgb(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "g.png").write_bytes(png(np.full((3, 3), 9, np.uint8)))
    (row,) = rows(ImageFolderDataset(str(tmp_path), decode=True))
    assert row["image"].shape == (3, 3, 3) and (row["image"] == 9).all()


def test_undecodable_file_is_named(tree):
    root, _ = tree
    ds = ImageFolderDataset(str(root), decode=True, shuffle=False)
    with pytest.raises((ValueError, PipelineError), match=r"cannot decode .*notes.txt"):
        rows(ds)


def test_options_num_samples_and_shards(tree):
    root, _ = tree
    assert len(rows(ImageFolderDataset(str(root), num_samples=2))) == 2
    parts = [rows(ImageFolderDataset(str(root), extensions=[".png"], num_shards=2,
                                      shard_id=i, shuffle=False))
             for i in range(2)]
    assert [len(p) for p in parts] == [2, 2]
    got = sorted(r["image"].tobytes() for p in parts for r in p)
    assert len(set(got)) == 4


def test_missing_dir(tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        ImageFolderDataset(str(tmp_path / "nope"))
