"""What ``SummaryCollector(collect_specified_data={"collect_landscape": {...}})`` leaves
for ``SummaryLandscape``: the backbone's checkpoints at the steps (or epochs) of the
intervals, and ``ckpt_dir/train_metadata.json`` (MindSpore's file and keys)."""

from __future__ import annotations

import json
import os

__all__ = ["DEFAULTS", "KEYS", "check", "checkpoint_path", "backbone_of", "write", "read"]

DEFAULTS = {"landscape_size": 40, "unit": "step", "num_samples": 2048,
            "create_landscape": {"train": True, "result": True},
            "intervals": [[1, 2, 3, 4, 5, 6, 7, 8, 9],
                          [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]]}
KEYS = tuple(DEFAULTS)
_FILE_KEYS = ("epoch_group", "model_params_file_map", "step_per_epoch", "unit", "num_samples",
              "landscape_size", "create_landscape")


def _int(who, name, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{who}: {name} must be an int, got {value!r}")


def check(settings: dict, who: str) -> None:
    """Raise TypeError/ValueError (naming ``who`` and the key) for bad ``collect_landscape``
    settings, as MindSpore checks them.

    >>> check({"landscape_size": 2}, "SummaryCollector")
    Traceback (most recent call last):
    ...
    ValueError: SummaryCollector: collect_landscape's landscape_size must be in [3, 256], got 2
    """
    if not isinstance(settings, dict):
        raise TypeError(f"{who}: collect_landscape must be a dict, got "
                        f"{type(settings).__name__}")
    unknown = sorted(set(settings) - set(KEYS))
    if unknown:
        raise ValueError(f"{who}: unknown collect_landscape keys {unknown}; known: "
                         f"{list(KEYS)}")
    if "landscape_size" in settings:
        size = settings["landscape_size"]
        _int(who, "landscape_size", size)
        if not 3 <= size <= 256:
            raise ValueError(f"{who}: collect_landscape's landscape_size must be in [3, 256], "
                             f"got {size}")
    if "unit" in settings and settings["unit"] not in ("step", "epoch"):
        raise ValueError(f"{who}: collect_landscape's unit must be 'step' or 'epoch', got "
                         f"{settings['unit']!r}")
    if "num_samples" in settings:
        _int(who, "num_samples", settings["num_samples"])
        if settings["num_samples"] <= 0:
            raise ValueError(f"{who}: collect_landscape's num_samples must be positive, got "
                             f"{settings['num_samples']}")
    if "create_landscape" in settings:
        create = settings["create_landscape"]
        if not isinstance(create, dict) or set(create) != {"train", "result"} or not all(
                isinstance(v, bool) for v in create.values()):
            raise ValueError(f"{who}: collect_landscape's create_landscape must be "
                             f"{{'train': bool, 'result': bool}}, got {create!r}")
    if "intervals" in settings:
        intervals = settings["intervals"]
        if not isinstance(intervals, list) or not all(isinstance(i, list) for i in intervals):
            raise TypeError(f"{who}: collect_landscape's intervals must be a list of lists, "
                            f"got {intervals!r}")
        for interval in intervals:
            if len(interval) < 3:
                raise ValueError(f"{who}: each interval of collect_landscape needs at least "
                                 f"three checkpoints, got {interval}")
            for j in interval:
                _int(who, "each value of intervals", j)


def backbone_of(cb):
    """The network whose parameters are saved: the Model's network, without a train
    cell's optimizer step or a loss cell around it."""
    net = cb.get("network") or cb.get("train_network")
    while hasattr(net, "optimizer") and hasattr(net, "network"):
        net = net.network
    return getattr(net, "_backbone", net)


def checkpoint_path(ckpt_dir: str, backbone, number: int, unit: str) -> str:
    return os.path.join(ckpt_dir, f"{type(backbone).__name__}_{number}_{unit}.ckpt")


def write(ckpt_dir: str, data: dict) -> str:
    """Write ``train_metadata.json`` (atomically) and return its path."""
    path = os.path.join(ckpt_dir, "train_metadata.json")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)
    return path


def read(ckpt_dir: str, who: str) -> dict:
    """The metadata, checked: FileNotFoundError (saying how to make it) when absent."""
    path = os.path.join(ckpt_dir, "train_metadata.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{who}: {path} does not exist; train with SummaryCollector(summary_dir, "
            f"collect_specified_data={{'collect_landscape': {{...}}}}) into this directory")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    unknown = sorted(set(data) - set(_FILE_KEYS))
    missing = sorted(set(_FILE_KEYS) - set(data))
    if unknown or missing:
        raise ValueError(f"{who}: {path} has unknown keys {unknown} / lacks {missing}")
    check({k: data[k] for k in ("landscape_size", "unit", "num_samples", "create_landscape")},
          who)
    for group in data["epoch_group"].values():
        if len(group) < 3:
            raise ValueError(f"{who}: {path}: each epoch_group needs at least 3 checkpoints, "
                             f"got {group}")
        absent = [n for n in group if str(n) not in data["model_params_file_map"]]
        if absent:
            raise ValueError(f"{who}: {path}: no checkpoint was saved at {data['unit']}s "
                             f"{absent} of the interval {group} (did training reach them?)")
    return data
