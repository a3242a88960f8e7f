"""serialize/deserialize/show/compare: pipelines round-trip through their JSON description."""

import json

import numpy as np
import pytest
from PIL import Image

import ms_data as ds
from ms_data import transforms, vision


def double(x):
    return x * 2


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("ser")
    for cls in "ab":
        (root / cls).mkdir()
        for i in range(3):
            Image.fromarray(np.full((6, 6, 3), 40 * i, np.uint8)).save(root / cls / f"{i}.png")
    return str(root)


def _rows(data):
    return [[np.asarray(c).tolist() for c in row]
            for row in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_image_pipeline_round_trips_through_a_file(folder, tmp_path):
    data = ds.ImageFolderDataset(folder, shuffle=False)
    data = data.map([vision.Decode(), vision.Resize((2, 2)), vision.HWC2CHW()],
                    input_columns="image", num_parallel_workers=2)
    data = data.map(transforms.TypeCast(np.int64), input_columns="label")
    data = data.batch(2, drop_remainder=True).repeat(2)
    path = tmp_path / "pipeline.json"
    description = ds.serialize(data, str(path))
    assert description["op_type"] == "Repeat"
    assert description["children"][0]["op_type"] == "Batch"
    assert json.loads(path.read_text()) == description
    again = ds.deserialize(json_filepath=str(path))
    assert _rows(again) == _rows(data) and len(_rows(again)) == 6
    assert ds.compare(data, again) and not ds.compare(data, data.repeat(1))
    assert data.to_json() == description


def test_samplers_functions_and_zip_round_trip():
    sampler = ds.SequentialSampler(1, 3)
    sampler.add_child(ds.SubsetSampler([5, 4, 3, 2, 1]))
    a = ds.NumpySlicesDataset({"x": np.arange(10, 20)}, sampler=sampler).map(double)
    b = ds.NumpySlicesDataset({"y": [1.5, 2.5, 3.5]}, shuffle=False)
    data = a.zip(b).project(["y", "x"]).rename(["y"], ["z"])
    again = ds.deserialize(input_dict=json.loads(json.dumps(ds.serialize(data))))
    assert _rows(again) == _rows(data) == [[1.5, 28], [2.5, 26], [3.5, 24]]
    plain = ds.NumpySlicesDataset(list(range(6)), shuffle=False)
    plain.use_sampler(ds.SequentialSampler(num_samples=2))
    assert _rows(ds.deserialize(input_dict=ds.serialize(plain))) == [[0], [1]]


def test_what_cannot_be_read_back_is_named():
    data = ds.NumpySlicesDataset([1, 2], shuffle=False).map(lambda x: x)
    with pytest.raises(ValueError, match="cannot be described in JSON.*lambda"):
        ds.deserialize(input_dict=ds.serialize(data))

    def rows():
        yield (np.array(1),)

    gen = ds.GeneratorDataset(rows, ["x"])
    with pytest.raises(ValueError, match="cannot find|cannot be described"):
        ds.deserialize(input_dict=ds.serialize(gen))
    with pytest.raises(ValueError, match="exactly one"):
        ds.deserialize()
    with pytest.raises(ValueError, match="not a pipeline description"):
        ds.deserialize(input_dict={"op_type": "Batch"})
    with pytest.raises(TypeError, match="expected a Dataset"):
        ds.serialize([1, 2])


def test_show_prints_the_description(capsys):
    ds.show(ds.NumpySlicesDataset([1], shuffle=False).batch(1), indentation=None)
    printed = json.loads(capsys.readouterr().out)
    assert printed["op_type"] == "Batch" and printed["children"][0]["op_type"] == \
        "NumpySlicesDataset"
