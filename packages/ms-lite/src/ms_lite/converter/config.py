"""The converter's ``--configFile``, in MindSpore Lite's INI format.

```
[common_quant_param]
quant_type=FULL_QUANT        # or WEIGHT_QUANT
bit_num=8
[data_preprocess_param]
calibrate_path=x:/path/to/dir  # input name : a directory of .npy (or .bin) samples,
calibrate_size=100             # or a single .npy holding a batch of samples
input_type=BIN
[full_quant_param]
activation_quant_method=MAX_MIN
```
"""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass, field

import numpy as np

__all__ = ["QuantConfig", "read_config", "ConfigError"]


class ConfigError(ValueError):
    """A config file the converter cannot use; the message names the file and key."""


@dataclass
class QuantConfig:
    quant_type: str = ""                     # "", "FULL_QUANT", "WEIGHT_QUANT"
    bit_num: int = 8
    calibrate_path: dict[str, str] = field(default_factory=dict)
    calibrate_size: int = 100
    activation_quant_method: str = "MAX_MIN"
    source: str = ""

    def calibration(self, input_name: str, shape: tuple, dtype) -> list[np.ndarray]:
        """The calibration batches for one input: arrays whose dimensions after the first
        are the input's (the batch size may differ from the model's)."""
        path = self.calibrate_path.get(input_name)
        if path is None:
            raise ConfigError(f"{self.source}: [data_preprocess_param] calibrate_path has no "
                              f"entry for the model input {input_name!r}")
        if os.path.isfile(path):
            batch = np.load(path)
            samples = [batch[i:i + self.calibrate_size]
                       for i in range(0, min(len(batch), self.calibrate_size),
                                      max(self.calibrate_size, 1))]
        elif os.path.isdir(path):
            files = sorted(os.listdir(path))[:self.calibrate_size]
            samples = [_sample(os.path.join(path, f), shape, dtype) for f in files]
        else:
            raise ConfigError(f"{self.source}: calibrate_path {path!r} does not exist")
        samples = [s.astype(dtype, copy=False) for s in samples
                   if s.ndim == len(shape) and s.shape[1:] == tuple(shape[1:])]
        if not samples:
            raise ConfigError(f"{self.source}: no calibration sample of shape "
                              f"(N,) + {tuple(shape[1:])} in {path!r}")
        return samples


def _sample(path: str, shape, dtype) -> np.ndarray:
    """One sample file: a .npy, or raw values (.bin) of one input of ``shape``."""
    if path.endswith(".npy"):
        a = np.load(path)
        return a[None] if a.ndim == len(shape) - 1 else a
    raw = np.fromfile(path, dtype=dtype)
    one = int(np.prod(shape[1:]))
    if one == 0 or raw.size % one:
        raise ConfigError(f"{path}: {raw.size} values, not a whole number of samples of "
                          f"shape {tuple(shape[1:])}")
    return raw.reshape((-1,) + tuple(shape[1:]))


def read_config(path) -> QuantConfig:
    """Parse ``path``; unknown quant types and malformed entries are named."""
    path = os.fspath(path)
    parser = configparser.ConfigParser(inline_comment_prefixes=("#",))
    try:
        with open(path, encoding="utf-8") as f:
            parser.read_file(f)
    except (OSError, configparser.Error, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the config file: {e}") from None
    cfg = QuantConfig(source=path)
    common = parser["common_quant_param"] if parser.has_section("common_quant_param") else {}
    cfg.quant_type = common.get("quant_type", "").strip().upper()
    if cfg.quant_type not in ("", "FULL_QUANT", "WEIGHT_QUANT"):
        raise ConfigError(f"{path}: quant_type {cfg.quant_type!r} is not FULL_QUANT or "
                          "WEIGHT_QUANT")
    try:
        cfg.bit_num = int(common.get("bit_num", "8"))
        pre = parser["data_preprocess_param"] if parser.has_section(
            "data_preprocess_param") else {}
        cfg.calibrate_size = int(pre.get("calibrate_size", "100"))
    except ValueError as e:
        raise ConfigError(f"{path}: {e}") from None
    if cfg.bit_num != 8:
        raise ConfigError(f"{path}: bit_num {cfg.bit_num}: only 8-bit quantization is "
                          "supported")
    for item in filter(None, (s.strip() for s in pre.get("calibrate_path", "").split(";"))):
        name, sep, p = item.partition(":")
        if not sep:
            raise ConfigError(f"{path}: calibrate_path entry {item!r} is not input_name:path")
        base = os.path.dirname(os.path.abspath(path))
        cfg.calibrate_path[name.strip()] = os.path.join(base, os.path.expanduser(p.strip()))
    if parser.has_section("full_quant_param"):
        cfg.activation_quant_method = parser["full_quant_param"].get(
            "activation_quant_method", "MAX_MIN").strip().upper()
        if cfg.activation_quant_method != "MAX_MIN":
            raise ConfigError(f"{path}: activation_quant_method "
                              f"{cfg.activation_quant_method!r}: only MAX_MIN is supported")
    if cfg.quant_type == "FULL_QUANT" and not cfg.calibrate_path:
        raise ConfigError(f"{path}: FULL_QUANT needs [data_preprocess_param] calibrate_path")
    return cfg
