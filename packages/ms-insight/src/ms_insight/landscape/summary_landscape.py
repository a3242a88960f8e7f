"""``SummaryLandscape``: MindSpore's loss landscape from the checkpoints a
``SummaryCollector`` saved (``collect_landscape``).

For each interval of checkpoints ("train"), the loss on a ``landscape_size`` square grid
in the plane of the trajectory's two principal components around the interval's last
weights, with the trajectory projected into it; for the last checkpoint ("result"), the
loss on a grid along two random normalized directions, ``[-1, 1]`` each way. The loss of
a grid point is the ``Loss`` metric of ``model.train_network`` over ``num_samples`` of the
dataset, with the weights moved there.

Written with ``SummaryRecord`` at step 0, for each landscape ``landscape_[first, last]``:
the grid as tensors (``.../x``, ``.../y`` the axes, ``.../loss`` the grid, rows along y;
for PCA ``.../path``: rows x, y, loss of each checkpoint), and a picture (``.../image``,
viridis, low loss dark) that TensorBoard's Images tab shows. MindInsight's own
``LossLandscape`` record is MindSpore's proto and is not written.
"""

from __future__ import annotations

import os
import shutil

import numpy as np

from ms_insight.landscape import directions as D
from ms_insight.landscape import metadata as M

__all__ = ["SummaryLandscape"]

_WHO = "SummaryLandscape"
_PROZ = 0.2  # MindSpore's margin around the trajectory, a share of its extent


class SummaryLandscape:
    """Make loss landscapes from a ``SummaryCollector`` run's checkpoints.

    Args:
        summary_dir: the ``SummaryCollector``'s ``summary_dir`` (its ``ckpt_dir`` holds
            the checkpoints and ``train_metadata.json``).
    """

    def __init__(self, summary_dir):
        self._summary_dir = os.path.realpath(os.fspath(summary_dir))
        self._ckpt_dir = os.path.join(self._summary_dir, "ckpt_dir")
        os.makedirs(self._ckpt_dir, exist_ok=True)

    def clean_ckpt(self) -> None:
        """Delete the checkpoints (and metadata) of the landscape."""
        shutil.rmtree(self._ckpt_dir, ignore_errors=True)

    def gen_landscapes_with_multi_process(self, callback_fn, collect_landscape=None,
                                          device_ids=None, output=None) -> list[dict]:
        """Compute the landscapes and write them to ``output`` (default: ``summary_dir``).

        Args:
            callback_fn: no arguments; returns ``(model, network, dataset, metrics)``: a
                ``Model`` whose ``train_network`` gives the loss (``Model(network,
                loss_fn)``), its network (the checkpoints' parameter names), the data the
                loss is computed on, and a dict of metrics with a ``"Loss"`` entry.
            collect_landscape: overrides of the collected settings (``landscape_size``,
                ``unit``, ``num_samples``, ``create_landscape``, ``intervals``), written
                back to ``train_metadata.json`` as MindSpore does.
            device_ids: MindSpore's devices (ints in [0, 7]) to split the grid over. On the
                CPU the grid is computed in this process, whatever the list.
            output: the summary directory to write to.

        Returns:
            One dict per landscape: ``interval``, ``decomposition`` ("PCA" / "Random"),
            ``x``, ``y`` (axes), ``loss`` (grid, rows along y), ``path`` (PCA: the
            checkpoints' x, y and loss) and ``convergence`` (x, y, loss of the last one).
        """
        _check_device_ids(device_ids)
        if not callable(callback_fn):
            raise TypeError(f"{_WHO}: callback_fn must be callable, got "
                            f"{type(callback_fn).__name__}")
        if collect_landscape is not None:
            self._override(collect_landscape)
        data = M.read(self._ckpt_dir, _WHO)
        loss = _LossGrid(callback_fn, data["num_samples"])
        landscapes = []
        size = data["landscape_size"]
        if data["create_landscape"]["train"]:
            for group in data["epoch_group"].values():
                landscapes.append(self._by_pca(group, data, size, loss))
        if data["create_landscape"]["result"]:
            last = list(data["epoch_group"].values())[-1][-1]
            landscapes.append(self._by_random(last, data, size, loss))
        from ms_insight.landscape.write import write_landscapes

        write_landscapes(os.fspath(output) if output is not None else self._summary_dir,
                         landscapes)
        return landscapes

    def _override(self, settings: dict) -> None:
        M.check(settings, _WHO)
        path = os.path.join(self._ckpt_dir, "train_metadata.json")
        if not os.path.isfile(path):
            M.read(self._ckpt_dir, _WHO)  # raises, saying how to make the file
        import json

        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        data.update({k: v for k, v in settings.items() if k in data})
        if "intervals" in settings:
            data["epoch_group"] = {str(i): list(g) for i, g in enumerate(settings["intervals"])}
        M.write(self._ckpt_dir, data)

    def _params(self, number, data) -> dict:
        from ms_nn.train.checkpoint import load_checkpoint
        from ms_tensor.tensor import array_of

        path = data["model_params_file_map"][str(number)]
        return {k: np.array(array_of(p), np.float32) for k, p in load_checkpoint(path).items()
                if hasattr(p, "asnumpy")}

    def _by_pca(self, group, data, size, loss) -> dict:
        trajectory = [self._params(n, data) for n in group]
        final = trajectory[-1]
        v, w = D.pca_directions(trajectory)
        coefs = D.coefficients(trajectory, v, w)

        def axis(c):
            lo, hi = c.min(), c.max()
            return np.linspace(lo - _PROZ * (hi - lo), hi + _PROZ * (hi - lo), size)

        x, y = axis(coefs[:, 0]), axis(coefs[:, 1])
        path_loss = np.array([loss(final, v, w, a, b) for a, b in coefs])
        path = np.stack([coefs[:, 0], coefs[:, 1], path_loss])
        return {"interval": [group[0], group[-1]], "decomposition": "PCA", "x": x, "y": y,
                "loss": loss.grid(final, v, w, x, y), "path": path,
                "convergence": np.array([0.0, 0.0, path_loss[-1]])}

    def _by_random(self, number, data, size, loss) -> dict:
        final = self._params(number, data)
        v, w = D.random_directions(final, np.random)
        x = y = np.linspace(-_PROZ * 5, _PROZ * 5, size)
        grid = loss.grid(final, v, w, x, y)
        mid = size // 2
        return {"interval": [number], "decomposition": "Random", "x": x, "y": y, "loss": grid,
                "path": None, "convergence": np.array([x[mid], y[mid], grid[mid, mid]])}


class _LossGrid:
    """The ``Loss`` metric of the model's train network with the weights moved to
    ``final + a * v + b * w``, over the first ``num_samples`` of the dataset."""

    def __init__(self, callback_fn, num_samples: int):
        got = callback_fn()
        if not isinstance(got, (tuple, list)) or len(got) != 4:
            raise TypeError(f"{_WHO}: callback_fn must return (model, network, dataset, "
                            f"metrics), got {type(got).__name__}")
        model, network, dataset, metrics = got
        if not isinstance(metrics, dict) or "Loss" not in metrics:
            raise ValueError(f"{_WHO}: callback_fn's metrics must be a dict with a 'Loss' "
                             f"metric (MindSpore reads the landscape from it), got {metrics!r}")
        from ms_nn.train.data import Batches

        net = model.train_network
        while hasattr(net, "optimizer") and hasattr(net, "network"):
            net = net.network  # a train cell's loss network: the weights are not updated
        self._net = net
        self._metrics = metrics
        self._params = dict(network.parameters_and_names())
        batch = dataset.get_batch_size() if hasattr(dataset, "get_batch_size") else 1
        if hasattr(dataset, "take"):
            dataset = dataset.take(max(1, num_samples // max(1, batch)))
        data = Batches(dataset, _WHO)
        self._batches = list(data.epoch(1))
        data.close()

    def _set(self, final, v, w, a, b) -> None:
        from ms_tensor import Tensor

        missing = sorted(set(final) - set(self._params))
        if missing:
            raise ValueError(f"{_WHO}: callback_fn's network has no parameters {missing} "
                             f"of the checkpoints; it has {sorted(self._params)}")
        for name, value in final.items():
            moved = value + np.float32(a) * v[name] + np.float32(b) * w[name]
            self._params[name].set_data(Tensor(moved.astype(np.float32)))

    def __call__(self, final, v, w, a, b) -> float:
        self._set(final, v, w, a, b)
        for m in self._metrics.values():
            m.clear()
        self._net.set_train(True)  # MindSpore's: the train network, in training mode
        for batch in self._batches:
            out = self._net(*batch)
            out = out[0] if isinstance(out, (tuple, list)) else out
            for m in self._metrics.values():
                m.update(out)
        return float(self._metrics["Loss"].eval())

    def grid(self, final, v, w, x, y) -> np.ndarray:
        return np.array([[self(final, v, w, a, b) for a in x] for b in y])


def _check_device_ids(device_ids) -> None:
    if device_ids is None:
        return
    if not isinstance(device_ids, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in device_ids):
        raise TypeError(f"{_WHO}.gen_landscapes_with_multi_process: device_ids must be a list "
                        f"of ints, got {device_ids!r}")
    bad = [i for i in device_ids if not 0 <= i <= 7]
    if bad:
        raise ValueError(f"{_WHO}.gen_landscapes_with_multi_process: device_ids must be in "
                         f"[0, 7], got {bad}")
