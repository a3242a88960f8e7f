"""CelebADataset on small list files; the expected rows were printed by MindSpore 2.10 on
the same files."""

import numpy as np
import pytest
from PIL import Image

import ms_data as ds

NAMES = [f"00000{i}.jpg" for i in range(1, 6)]
VALUES = [" 1 -1  1", "-1  1 -1", "-1 -1  1", " 1  1 -1", "-1 -1 -1"]


@pytest.fixture
def celeba(tmp_path):
    (tmp_path / "img_align_celeba").mkdir()
    for i, n in enumerate(NAMES):  # the official layout for the last two
        folder = tmp_path if i < 3 else tmp_path / "img_align_celeba"
        Image.fromarray(np.full((3, 2, 3), i * 30, np.uint8)).save(folder / n)
    (tmp_path / "list_attr_celeba.txt").write_text(
        "5\n5_o_Clock_Shadow Arched_Eyebrows Smiling\n"
        + "".join(f"{n}  {v}\n" for n, v in zip(NAMES, VALUES)))
    (tmp_path / "list_eval_partition.txt").write_text(
        "".join(f"{n} {p}\n" for n, p in zip(NAMES, [0, 1, 2, 0, 1])))
    return str(tmp_path)


def attrs(d):
    return [r["attr"].tolist() for r in d.create_dict_iterator(num_epochs=1,
                                                              output_numpy=True)]


def test_rows_and_usages_as_mindspore(celeba):
    d = ds.CelebADataset(celeba, shuffle=False)
    assert d.get_col_names() == ["image", "attr"]
    assert d.output_types() == [np.uint8, np.uint32] and d.output_shapes()[1] == [3]
    assert attrs(d) == [[1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 0, 0]]
    assert attrs(ds.CelebADataset(celeba, usage="train", shuffle=False)) == [[1, 0, 1],
                                                                             [1, 1, 0]]
    assert attrs(ds.CelebADataset(celeba, usage="valid", shuffle=False)) == [[0, 1, 0],
                                                                             [0, 0, 0]]
    assert attrs(ds.CelebADataset(celeba, usage="test", shuffle=False)) == [[0, 0, 1]]
    got = list(ds.CelebADataset(celeba, shuffle=False, decode=True, num_samples=2)
               .create_tuple_iterator(output_numpy=True))
    assert got[1][0].shape == (3, 2, 3) and abs(int(got[1][0][0, 0, 0]) - 30) <= 2


def test_errors(celeba, tmp_path):
    with pytest.raises(ValueError, match="usage"):
        ds.CelebADataset(celeba, usage="dev")
    (tmp_path / "list_eval_partition.txt").unlink()
    with pytest.raises(ValueError, match="list_eval_partition.txt"):
        ds.CelebADataset(celeba, usage="train")
    (tmp_path / "list_attr_celeba.txt").write_text("1\na b\n000001.jpg 1\n")
    with pytest.raises(Exception, match="list_attr_celeba.txt:3"):
        ds.CelebADataset(celeba)
    (tmp_path / "list_attr_celeba.txt").write_text("1\na\nmissing.jpg 1\n")
    with pytest.raises(Exception, match="missing.jpg"):
        attrs(ds.CelebADataset(celeba))
