"""SBDataset on a small SBD tree (expected shapes and sums from MindSpore 2.10's reading)."""

import numpy as np
import pytest
from PIL import Image

import ms_data as ds

scipy_io = pytest.importorskip("scipy.io")
sparse = pytest.importorskip("scipy.sparse")


@pytest.fixture(scope="module")
def sbd(tmp_path_factory):
    root = tmp_path_factory.mktemp("sbd")
    (root / "img").mkdir()
    (root / "cls").mkdir()
    rng = np.random.default_rng(0)
    truth = {}
    for n in ("a", "b", "c"):
        image = rng.integers(0, 255, (5, 6, 3), dtype=np.uint8)
        Image.fromarray(image).save(root / "img" / f"{n}.jpg")
        maps = (rng.random((20, 5, 6)) > 0.8).astype(np.uint8)
        cell = np.empty((20, 1), dtype=object)
        for i in range(20):
            cell[i, 0] = sparse.csc_matrix(maps[i])
        seg = rng.integers(0, 21, (5, 6)).astype(np.uint8)
        scipy_io.savemat(root / "cls" / f"{n}.mat",
                         {"GTcls": {"Boundaries": cell, "Segmentation": seg}})
        truth[n] = (maps, seg)
    (root / "train.txt").write_text("a\nb\n")
    (root / "val.txt").write_text("c\n")
    return str(root), truth


def _rows(data):
    return list(data.create_tuple_iterator(num_epochs=1, output_numpy=True))


def test_boundaries_and_segmentation(sbd):
    root, truth = sbd
    data = ds.SBDataset(root, shuffle=False)
    assert data.get_col_names() == ["image", "task"] and data.get_dataset_size() == 3
    rows = _rows(data)
    for (image, task), name in zip(rows, "abc"):
        assert image.dtype == np.uint8 and image.ndim == 1  # the JPEG's bytes
        assert task.shape == (20, 5, 6) and (task == truth[name][0]).all()
    (image, seg), = _rows(ds.SBDataset(root, task="Segmentation", usage="val", decode=True,
                                       shuffle=False))
    assert image.shape == (5, 6, 3) and (seg == truth["c"][1]).all()
    assert len(_rows(ds.SBDataset(root, usage="train", shuffle=False))) == 2


def test_errors_match_mindspore(sbd, tmp_path):
    root, _ = sbd
    with pytest.raises(ValueError, match="Input task is not within the valid set"):
        ds.SBDataset(root, task="x")
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        ds.SBDataset(root, usage="test")
    with pytest.raises(FileNotFoundError, match="train_noval.txt not found"):
        ds.SBDataset(root, usage="train_noval")
    with pytest.raises(ValueError, match="does not exist"):
        ds.SBDataset(str(tmp_path / "none"))
