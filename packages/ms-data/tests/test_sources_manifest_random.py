"""ManifestDataset, RandomDataset and LineReader (expected values from MindSpore 2.10)."""

import json

import numpy as np
import pytest
from PIL import Image

import ms_data as ds


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    root = tmp_path_factory.mktemp("manifest")
    paths = []
    for i in range(4):
        path = root / f"{i}.png"
        Image.fromarray(np.full((4, 4, 3), i, np.uint8)).save(path)
        paths.append(str(path))
    entries = [(0, "train", ["dog"]), (1, "train", ["cat", "dog"]), (2, "eval", ["bird"]),
               (3, "TRAIN", ["bird"])]
    file = root / "m.json"
    file.write_text("\n".join(json.dumps({"source": paths[i], "usage": u,
                                          "annotation": [{"name": n} for n in names]})
                              for i, u, names in entries) + "\n")
    return str(file)


def _rows(data):
    return [(int(r["image"][0, 0, 0]), r["label"].tolist())
            for r in data.create_dict_iterator(num_epochs=1, output_numpy=True)]


def test_manifest_rows_and_labels(manifest):
    data = ds.ManifestDataset(manifest, shuffle=False, decode=True)
    assert data.get_col_names() == ["image", "label"] and data.get_dataset_size() == 3
    assert data.get_class_indexing() == {"bird": 0, "cat": 1, "dog": 2}
    assert _rows(data) == [(0, 2), (1, [1, 2]), (3, 0)]
    evals = ds.ManifestDataset(manifest, usage="eval", shuffle=False, decode=True)
    assert evals.get_class_indexing() == {"bird": 0} and _rows(evals) == [(2, 0)]
    picked = ds.ManifestDataset(manifest, shuffle=False, decode=True,
                                class_indexing={"dog": 5, "cat": 1})
    assert _rows(picked) == [(0, 5), (1, [1, 5])]
    raw = next(ds.ManifestDataset(manifest, shuffle=False).create_dict_iterator(
        num_epochs=1, output_numpy=True))
    assert raw["image"].dtype == np.uint8 and raw["image"].ndim == 1
    assert raw["label"].dtype == np.int32


def test_manifest_errors(manifest, tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ds.ManifestDataset(str(tmp_path / "none.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("not json\n")
    with pytest.raises(ds.DatasetError, match="line 1 is not a manifest entry"):
        ds.ManifestDataset(str(bad))
    with pytest.raises(ValueError, match="usage"):
        ds.ManifestDataset(manifest, usage="test")


def test_random_dataset_follows_its_schema():
    schema = ds.Schema()
    schema.add_column("image", de_type="uint8", shape=[2, 3])
    schema.add_column("label", de_type="int32", shape=[1])
    data = ds.RandomDataset(schema=schema, total_rows=4)
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert data.get_dataset_size() == 4 and len(rows) == 4
    for r in rows:
        assert r["image"].dtype == np.uint8 and r["image"].shape == (2, 3)
        assert (r["image"] == r["image"].flat[0]).all()  # one value per tensor, as MindSpore
        assert r["label"].dtype == np.int32 and r["label"].shape == (1,)
    assert len({int(r["label"][0]) for r in rows}) > 1
    again = list(ds.RandomDataset(schema=schema, total_rows=4, shuffle=False)
                 .create_dict_iterator(num_epochs=1, output_numpy=True))
    by_value = sorted(int(r["label"][0]) for r in rows)
    assert by_value == sorted(int(r["label"][0]) for r in again)
    assert ds.RandomDataset(schema=schema, total_rows=10,
                            columns_list=["label"]).get_col_names() == ["label"]


def test_random_dataset_without_schema_and_errors():
    data = ds.RandomDataset(total_rows=3)
    names = data.get_col_names()
    assert 1 <= len(names) <= 4 and names[0] == "c0"
    row = next(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert 1 <= row["c0"].ndim <= 4 and max(row["c0"].shape) <= 32
    assert 1 <= ds.RandomDataset().get_dataset_size() <= 1024
    schema = ds.Schema()
    schema.add_column("text", de_type="string", shape=[1])
    with pytest.raises(ValueError, match="numeric type"):
        ds.RandomDataset(schema=schema)
    with pytest.raises(ValueError, match="columns_list"):
        ds.RandomDataset(total_rows=2, columns_list=["nope"])


def test_line_reader(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("a b\nsecond\n\nlast")
    reader = ds.LineReader(str(path))
    assert reader.len() == 4
    assert [reader.readline(n) for n in (1, 3, 4, 2)] == ["a b", "", "last", "second"]
    with pytest.raises(ValueError, match=r"\[1, 4\]"):
        reader.readline(5)
    with pytest.raises(TypeError):
        reader.readline(1.0)
    reader.close()
    with pytest.raises(RuntimeError, match="does not exist"):
        ds.LineReader(str(tmp_path / "none.txt"))
