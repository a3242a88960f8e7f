"""atheris fuzz targets for ms-data's file loaders: any bytes end in rows, or in a DatasetError
naming the file; never another exception, a hang, or an allocation beyond the file's size.

    python packages/ms-data/tests/fuzz_loaders.py TARGET -max_total_time=600 [corpus_dir]

TARGET is one of ``mnist`` (IDX files, plain or gzipped), ``cifar`` (CIFAR-10 binary),
``records`` (record files: Parquet and Arrow IPC, read by MindDataset, ParquetDataset and
ArrowDataset) and ``image`` (the Pillow decoder behind ImageFolderDataset and
``vision.Decode``). The rest are libFuzzer's options. An empty (or no) corpus is seeded with
small valid files; a crash input is saved as ``crash-*`` in the working directory.
``test_loaders_fuzz.py`` runs each target briefly.
"""

import gzip
import io
import os
import struct
import sys
import tempfile

import numpy as np

from ms_data.errors import DatasetError  # imports nothing else, so the rest gets instrumented

# What a loader may raise on a bad file; the message must name the file.
_CLEAN = (DatasetError, FileNotFoundError)


def _idx(magic: int, array: np.ndarray) -> bytes:
    return struct.pack(f">I{array.ndim}I", magic, *array.shape) + array.astype(np.uint8).tobytes()


# -- mnist: the first byte picks the file fuzzed and how; the other file is made to match -----
def _mnist_seeds(directory: str) -> None:
    rng = np.random.default_rng(0)
    images = _idx(2051, rng.integers(0, 256, (3, 28, 28)))
    labels = _idx(2049, np.array([1, 2, 3]))
    for mode, data in ((0, images), (1, labels), (2, images), (3, labels), (4, images)):
        with open(os.path.join(directory, f"seed{mode}"), "wb") as f:
            f.write(bytes([mode]) + (gzip.compress(data) if mode == 4 else data))


def _mnist(work: str):
    from ms_data.sources.mnist import MnistDataset

    names = ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")

    def one_input(data: bytes) -> None:
        if not data:
            return
        mode, body = data[0] % 5, data[1:]
        fuzzed = mode % 2 if mode < 4 else 0  # 0: images, 1: labels
        count = struct.unpack(">I", body[4:8])[0] if len(body) >= 8 else 1
        count = min(count, 64)
        other = (_idx(2049, np.zeros(count)) if fuzzed == 0
                 else _idx(2051, np.zeros((count, 28, 28))))
        for name in os.listdir(work):
            os.remove(os.path.join(work, name))
        gz = ".gz" if mode >= 2 else ""
        if mode in (2, 3):  # valid gzip around fuzzed IDX bytes
            body = gzip.compress(body, mtime=0)
        path = os.path.join(work, names[fuzzed] + gz)
        with open(path, "wb") as f:
            f.write(body)
        with open(os.path.join(work, names[1 - fuzzed]), "wb") as f:
            f.write(other)
        try:
            rows = list(MnistDataset(work, usage="test", shuffle=False))
        except _CLEAN as exc:
            _names_file(exc, path)
            return
        assert all(r[0].ndim == 3 and r[0].shape[2] == 1 for r in rows)

    return _mnist_seeds, one_input


# -- cifar ----------------------------------------------------------------------------------
def _cifar_seeds(directory: str) -> None:
    rng = np.random.default_rng(0)
    records = np.concatenate([np.array([[3], [9]], np.uint8),
                              rng.integers(0, 256, (2, 3072)).astype(np.uint8)], axis=1)
    with open(os.path.join(directory, "seed"), "wb") as f:
        f.write(records.tobytes())


def _cifar(work: str):
    from ms_data.sources.cifar import Cifar10Dataset

    path = os.path.join(work, "test_batch.bin")

    def one_input(data: bytes) -> None:
        with open(path, "wb") as f:
            f.write(data)
        try:
            rows = list(Cifar10Dataset(work, usage="test", shuffle=False))
        except _CLEAN as exc:
            _names_file(exc, path)
            return
        assert all(r[0].shape == (32, 32, 3) for r in rows)

    return _cifar_seeds, one_input


# -- records --------------------------------------------------------------------------------
_SCHEMA = {"label": {"type": "int32"}, "name": {"type": "string"}, "data": {"type": "bytes"},
           "mat": {"type": "float32", "shape": [2, 2]}, "vec": {"type": "int64", "shape": [-1]},
           "var": {"type": "int32", "shape": [-1, -1]}}


def _records_seeds(directory: str) -> None:
    from ms_data.sources.records import FileWriter

    for fmt in ("parquet", "arrow"):
        path = os.path.join(directory, f"seed.{fmt}")
        w = FileWriter(path, file_format=fmt)
        w.add_schema(_SCHEMA, "fuzz")
        w.write_raw_data([{"label": i, "name": f"r{i}", "data": b"x" * i,
                           "mat": np.full((2, 2), i, np.float32), "vec": np.arange(i),
                           "var": np.ones((i, 2), np.int32)} for i in range(3)])
        w.commit()


def _records(work: str):
    import ms_data as ds

    path = os.path.join(work, "fuzzed.rec")

    def one_input(data: bytes) -> None:
        with open(path, "wb") as f:
            f.write(data)
        for make in (ds.MindDataset, ds.ParquetDataset, ds.ArrowDataset):
            try:
                rows = list(make(path, shuffle=False).create_tuple_iterator(num_epochs=1,
                                                                              output_numpy=True))
            except _CLEAN as exc:
                _names_file(exc, path)
                continue
            assert all(isinstance(r, list) for r in rows)

    return _records_seeds, one_input


# -- image ----------------------------------------------------------------------------------
def _image_seeds(directory: str) -> None:
    from PIL import Image

    rng = np.random.default_rng(0)
    rgb = Image.fromarray(rng.integers(0, 256, (5, 7, 3)).astype(np.uint8))
    for fmt, image in (("PNG", rgb), ("JPEG", rgb), ("BMP", rgb), ("GIF", rgb.convert("P")),
                       ("TIFF", rgb), ("WEBP", rgb), ("PNG", rgb.convert("LA")),
                       ("PPM", rgb), ("ICO", rgb)):
        buf = io.BytesIO()
        try:
            image.save(buf, format=fmt)
        except (OSError, KeyError, ValueError):  # a Pillow built without this codec
            continue
        with open(os.path.join(directory, f"seed.{fmt.lower()}.{image.mode}"), "wb") as f:
            f.write(buf.getvalue())


def _image(work: str):
    from ms_data.sources.image_folder import decode_image
    from ms_data.vision import Decode

    path = os.path.join(work, "fuzzed.img")
    decode = Decode()

    def one_input(data: bytes) -> None:
        try:
            image = decode_image(data, path)
        except _CLEAN as exc:
            _names_file(exc, path)
        else:
            assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
        try:
            image = decode(np.frombuffer(data, np.uint8))
        except DatasetError:
            return
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3

    return _image_seeds, one_input


TARGETS = {"mnist": _mnist, "cifar": _cifar, "records": _records, "image": _image}


def _names_file(exc: BaseException, path: str) -> None:
    if path not in str(exc):
        raise AssertionError(f"the error does not name the file {path}: {exc!r}") from exc


def _limit_memory(extra: int = 1 << 30) -> None:
    """An allocation far beyond the input's size (a lying header) hits this limit and crashes
    the run (MemoryError) instead of swapping."""
    try:
        import resource

        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + extra, vm + extra))
    except (ImportError, OSError, StopIteration, ValueError):
        pass


def main(argv) -> None:
    import atheris

    if len(argv) < 2 or argv[1] not in TARGETS:
        raise SystemExit(f"usage: {argv[0]} {{{','.join(TARGETS)}}} [libFuzzer options]")
    target, argv = argv[1], [argv[0], *argv[2:]]
    with atheris.instrument_imports(include=["ms_data"]):
        import ms_data.sources.cifar
        import ms_data.sources.image_folder
        import ms_data.sources.mnist
        import ms_data.sources.records  # noqa: F401 -- instrumented for coverage feedback
    work = tempfile.mkdtemp(prefix=f"fuzz_{target}_")
    files = os.path.join(work, "files")
    os.mkdir(files)
    seeds, one_input = TARGETS[target](files)
    corpora = [a for a in argv[1:] if not a.startswith("-")]
    if not corpora:
        corpora = [os.path.join(work, "corpus")]
        os.mkdir(corpora[0])
        argv = [*argv, corpora[0]]
    folders = [c for c in corpora if os.path.isdir(c)]  # files given: run just those inputs
    if folders and not any(os.listdir(c) for c in folders):
        seeds(folders[0])
    import ms_data as ds

    ds.config.set_num_parallel_workers(1)  # in this process: a crash must point at the input
    _limit_memory()
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
