"""The seed's MNIST input pipeline through ms_data, MindSpore, a PyTorch DataLoader and numpy.

Workload: 20,000 28x28 uint8 images held in memory (a fixed random draw), through
Resize((32, 32), bilinear) -> Rescale(1/255, 0) -> Rescale(1/0.3081, -0.1307/0.3081) ->
HWC2CHW -> TypeCast(float32) -> batch(32), read to the end as numpy arrays; images per second.

* ms_data and MindSpore 2.10: ``NumpySlicesDataset -> map([...], "image",
  num_parallel_workers=w) -> batch(32) -> create_tuple_iterator(output_numpy=True)`` with 1 and 2
  workers. MindSpore wants numpy<2, so it runs in its own interpreter (``MS_PYTHON``, default
  ``/tmp/msenv/bin/python``): this file runs itself there with ``--worker`` and answers
  "run once" requests over a pipe, so its samples interleave with the others.
* PyTorch: a map-style Dataset whose ``__getitem__`` does the same work on one image
  (``F.interpolate`` bilinear, half-pixel centres, then the two rescales), DataLoader with
  batch_size 32 and 0 or 2 worker processes.
* numpy: the whole array in one vectorized float32 pass (gather-based bilinear resize,
  rescale, transpose): what the work costs with no pipeline around it.

Each round runs every implementation once in turn; the table shows the median over rounds.
The 2 cores are shared by everything. Usage: ``python benchmarks/bench_data.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import START_ENV, THREADS, Row, print_notes, run_rounds, timed
from _workers import reply_channel, serve, start_worker

IMAGES, HW, OUT, BATCH = 20_000, 28, 32, 32
RESCALE = (1.0 / 255.0, 0.0)
RESCALE_NML = (1 / 0.3081, -1 * 0.1307 / 0.3081)
CASE = "pipeline"  # the one case: the name the rows and the progress line carry


def make_images() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 256, (IMAGES, HW, HW, 1), dtype=np.uint8)


def digest(batch: np.ndarray) -> list[float]:
    """Shape and a few numbers of the first batch, to check the implementations agree."""
    b = np.asarray(batch, np.float64)
    return [*map(float, b.shape), float(b.mean()), float(b.std())]


def drain(iterator) -> tuple[int, np.ndarray]:
    first, rows = None, 0
    for item in iterator:
        image = item[0]
        first = image if first is None else first
        rows += len(image)
    if rows != IMAGES:
        raise RuntimeError(f"pipeline gave {rows} images, expected {IMAGES}")
    return rows, np.asarray(first)


# --- ms_data (and MindSpore, in the worker: the same code with another module) --------------
def dataset_pipeline(ds, vision, transforms, float32, images, workers):
    ops = [vision.Resize((OUT, OUT), interpolation=vision.Inter.LINEAR),
           vision.Rescale(*RESCALE), vision.Rescale(*RESCALE_NML), vision.HWC2CHW(),
           transforms.TypeCast(float32)]
    data = ds.NumpySlicesDataset({"image": images}, shuffle=False)
    return data.map(ops, "image", num_parallel_workers=workers).batch(BATCH)


def ms_data_rows(images) -> list[Row]:
    import ms_data as ds
    import ms_tensor
    from ms_data import transforms, vision

    rows = []
    for workers in (1, 2):
        pipe = dataset_pipeline(ds, vision, transforms, ms_tensor.float32, images, workers)

        def first(p=pipe):
            return digest(drain(p.create_tuple_iterator(output_numpy=True, num_epochs=1))[1])

        rows.append(Row(CASE, f"ms_data, {workers} worker{'s' * (workers > 1)}",
                        lambda p=pipe: timed(lambda: drain(
                            p.create_tuple_iterator(output_numpy=True, num_epochs=1))),
                        first))
    return rows


# --- PyTorch -----------------------------------------------------------------------------
class TorchImages:
    """Map-style dataset: one image per ``__getitem__``, transformed like the pipeline."""

    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        import torch
        import torch.nn.functional as F

        x = torch.from_numpy(self.images[i]).permute(2, 0, 1).float()[None]
        x = F.interpolate(x, size=(OUT, OUT), mode="bilinear", align_corners=False)[0]
        x = x * RESCALE[0] + RESCALE[1]
        return x * RESCALE_NML[0] + RESCALE_NML[1]


def torch_rows(images, notes) -> list[Row]:
    try:
        import torch
        from torch.utils.data import DataLoader
    except ImportError:
        notes.append("PyTorch skipped: not installed.")
        return []
    torch.set_num_threads(THREADS)
    notes.append(f"PyTorch {torch.__version__}, DataLoader(batch_size={BATCH}), "
                 "persistent_workers for 2 workers.")
    rows = []
    for workers in (0, 2):
        loader = DataLoader(TorchImages(images), batch_size=BATCH, num_workers=workers,
                            persistent_workers=workers > 0)

        def run(lo=loader):
            return timed(lambda: drain((b.numpy(),) for b in lo))

        def check(lo=loader):
            return digest(next(iter(lo)).numpy())

        rows.append(Row(CASE, f"PyTorch DataLoader, {workers} workers", run, check))
    return rows


# --- numpy -------------------------------------------------------------------------------
def bilinear_matrix(in_size: int, out_size: int) -> np.ndarray:
    """(in, out) float32 matrix of bilinear weights with half-pixel centres."""
    d = (np.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
    lo = np.clip(np.floor(d), 0, in_size - 1).astype(np.intp)
    hi = np.minimum(lo + 1, in_size - 1)
    f = np.clip(d - lo, 0, 1)
    m = np.zeros((in_size, out_size), np.float64)
    np.add.at(m, (lo, np.arange(out_size)), 1 - f)
    np.add.at(m, (hi, np.arange(out_size)), f)
    return m.astype(np.float32)


def numpy_pass(images: np.ndarray) -> np.ndarray:
    """All images at once: bilinear resize as two matrix products (BLAS), the two rescales
    folded into one multiply-add, NCHW."""
    n = len(images)
    m = bilinear_matrix(HW, OUT)
    scale = np.float32(RESCALE[0] * RESCALE_NML[0])
    x = images.reshape(n * HW, HW).astype(np.float32)
    t = (x @ m).reshape(n, HW, OUT).transpose(0, 2, 1).reshape(n * OUT, HW)   # rows resized
    out = (t @ (m * scale)).reshape(n, OUT, OUT).transpose(0, 2, 1)           # columns too
    return (out + np.float32(RESCALE_NML[1]))[:, None]


def numpy_row(images) -> Row:
    return Row(CASE, "numpy, one vectorized pass", lambda: timed(lambda: numpy_pass(images)),
               lambda: digest(numpy_pass(images)[:BATCH]),
               "numpy: no pipeline, no batches; the floor the work itself sets.")


# --- MindSpore worker --------------------------------------------------------------------
def mindspore_rows(data_path, notes, workers) -> list[Row]:
    worker = start_worker(__file__, data_path, START_ENV, notes, workers)
    if worker is None:
        return []
    notes.append(worker.describe())
    return [Row(CASE, f"MindSpore, {w} worker{'s' * (w > 1)}", lambda w=w: worker.run(w),
                lambda w=w: worker.check(w)) for w in (1, 2)]


def worker_main(data_path: str) -> int:
    """The MindSpore side: a pipeline per worker count, then answer the driver's requests."""
    reply = reply_channel()
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore.dataset import transforms, vision

    images = np.load(data_path)
    pipes = {w: dataset_pipeline(ds, vision, transforms, ms.float32, images, w) for w in (1, 2)}

    def drain_pipe(w):
        return drain(pipes[w].create_tuple_iterator(output_numpy=True, num_epochs=1))

    runs = {w: (lambda w=w: timed(lambda: drain_pipe(w))) for w in (1, 2)}
    checks = {w: (lambda w=w: digest(drain_pipe(w)[1])) for w in (1, 2)}
    return serve(reply, runs, checks)


# --- driver ------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds instead of 7")
    parser.add_argument("--worker", metavar="DATA", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker_main(args.worker)

    images = make_images()
    notes: list[str] = []
    workers: list = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "images.npy")
        np.save(path, images)
        try:
            rows = (ms_data_rows(images) + mindspore_rows(path, notes, workers)
                    + torch_rows(images, notes) + [numpy_row(images)])
            reference = np.asarray(rows[0].check())
            for row in rows:
                got = np.asarray(row.check())
                if got.shape != reference.shape or not np.allclose(got, reference, rtol=1e-3,
                                                                   atol=1e-3):
                    notes.append(f"{row.label}: first batch differs: {got} vs {reference}")
            # One warm-up round first: worker pools, caches.
            run_rounds(rows, CASE, 3 if args.quick else 7, warmup=1, settle_s=0.0)
        finally:
            for w in workers:
                w.close()

    print(f"Seed MNIST pipeline, {IMAGES:,} 28x28 uint8 images, batch {BATCH}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"{len(rows[0].samples)} rounds, medians")
    print(f"{'implementation':<34} {'img/s':>10} {'ms':>8}")
    for row in rows:
        med = statistics.median(row.samples)
        print(f"{row.label:<34} {IMAGES / med:>10,.0f} {med * 1e3:>8.1f}")
    print_notes(notes, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
