"""The seed's MNIST ``create_dataset`` with ``mindspore`` renamed to ``ms_data``, on the
bundled digits: the pipeline builds, runs two epochs, and gives LeNet-ready batches."""

import numpy as np
import pytest

import ms_data as ds
import ms_data.transforms as transforms
import ms_data.vision as vision
import ms_tensor as ms
from ms_data.bundled import digits_dir
from ms_data.vision import Inter


def create_dataset(data_path, batch_size=32, repeat_size=1, num_parallel_workers=1):
    """create dataset for train or test (the seed's function; only the imports changed)"""
    # define dataset
    mnist_ds = ds.MnistDataset(data_path)

    resize_height, resize_width = 32, 32
    rescale = 1.0 / 255.0
    shift = 0.0
    rescale_nml = 1 / 0.3081
    shift_nml = -1 * 0.1307 / 0.3081

    # define map operations
    resize_op = vision.Resize((resize_height, resize_width), interpolation=Inter.LINEAR)
    rescale_nml_op = vision.Rescale(rescale_nml, shift_nml)
    rescale_op = vision.Rescale(rescale, shift)
    hwc2chw_op = vision.HWC2CHW()
    type_cast_op = transforms.TypeCast(ms.int32)

    # apply map operations on images
    mnist_ds = mnist_ds.map(input_columns="label", operations=type_cast_op,
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(input_columns="image", operations=resize_op,
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(input_columns="image", operations=rescale_op,
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(input_columns="image", operations=rescale_nml_op,
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(input_columns="image", operations=hwc2chw_op,
                            num_parallel_workers=num_parallel_workers)

    # apply DatasetOps
    buffer_size = 10000
    mnist_ds = mnist_ds.shuffle(buffer_size=buffer_size)  # 10000 as in LeNet train script
    mnist_ds = mnist_ds.batch(batch_size, drop_remainder=True)
    mnist_ds = mnist_ds.repeat(repeat_size)
    return mnist_ds


LOW = (0 - 0.1307) / 0.3081    # a black pixel after both rescales
HIGH = (1 - 0.1307) / 0.3081   # a white one


@pytest.mark.parametrize("workers", [1, 2])
def test_seed_create_dataset_on_the_bundled_digits(workers):
    rows = ds.MnistDataset(digits_dir()).get_dataset_size()
    data = create_dataset(digits_dir(), batch_size=32, repeat_size=2,
                          num_parallel_workers=workers)
    assert data.get_col_names() == ["image", "label"]
    assert data.get_batch_size() == 32
    assert data.get_dataset_size() == 2 * (rows // 32)
    batches = list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert len(batches) == data.get_dataset_size()
    labels = []
    for image, label in batches:
        assert image.shape == (32, 1, 32, 32) and image.dtype == np.float32
        assert label.shape == (32,) and label.dtype == np.int32
        assert image.min() >= LOW - 1e-5 and image.max() <= HIGH + 1e-5
        labels.append(label)
    labels = np.concatenate(labels)
    assert set(np.unique(labels)) <= set(range(10)) and len(np.unique(labels)) == 10
    images = np.concatenate([b[0] for b in batches])
    assert images.min() == pytest.approx(LOW, abs=1e-5)   # digits have a black background
    assert images.max() > 0.5 * HIGH                    # and bright strokes


def test_seed_create_dataset_tensors_and_dict_iterator():
    data = create_dataset(digits_dir(), batch_size=16)
    row = next(data.create_dict_iterator())
    assert tuple(row["image"].shape) == (16, 1, 32, 32)
    assert row["image"].dtype == ms.float32 and row["label"].dtype == ms.int32
    assert set(data.output_types()) == {np.dtype(np.float32), np.dtype(np.int32)}
    assert data.output_shapes() == [[16, 1, 32, 32], [16]]
