"""``ModelCheckpoint`` and ``CheckpointConfig``: save the training network during training.

Files are named as MindSpore names them, ``{prefix}-{epoch}_{step_in_epoch}.ckpt``, and hold
safetensors data (see ``ms_nn.train.checkpoint``). The training network is saved, so the
optimizer's accumulators and step counter go in too and training resumes exactly.
"""

from __future__ import annotations

import os
import re
import time

from ms_nn.train.callbacks.callback import Callback
from ms_nn.train.checkpoint import save_checkpoint, wait_async_saves

__all__ = ["CheckpointConfig", "ModelCheckpoint"]


def _check_int(name: str, value, allow_none: bool = True) -> int | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"CheckpointConfig: {name} must be a non-negative int, got {value!r}")
    return value


class CheckpointConfig:
    """When and how ``ModelCheckpoint`` saves.

    Args:
        save_checkpoint_steps: save every this many steps (0 or None: not by steps).
        save_checkpoint_seconds: save when this many seconds passed since the last save; used
            only when ``save_checkpoint_steps`` is 0 or None.
        keep_checkpoint_max: keep at most this many files of this prefix (oldest go first).
        keep_checkpoint_per_n_minutes: instead of a maximum, keep one file per this many
            minutes; used only when ``keep_checkpoint_max`` is 0 or None.
        integrated_save, async_save: passed on to ``save_checkpoint``.
        saved_network: a Cell to save instead of the training network.
        append_info: a list with ``"epoch_num"`` and/or ``"step_num"`` and at most one dict of
            extra entries, saved alongside the parameters.
        exception_save: also save when training raises.
        format: ``"ckpt"`` or ``"safetensors"`` (the file extension; the bytes are
            safetensors either way).
    Raises:
        ValueError: if neither steps nor seconds are set, or for a bad value.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, crc_check=False, remove_redundancy=False,
                 format="ckpt", **kwargs):  # noqa: A002 (MindSpore's name)
        self.save_checkpoint_steps = _check_int("save_checkpoint_steps", save_checkpoint_steps)
        self.save_checkpoint_seconds = _check_int("save_checkpoint_seconds",
                                                  save_checkpoint_seconds)
        if not self.save_checkpoint_steps and not self.save_checkpoint_seconds:
            raise ValueError("CheckpointConfig: save_checkpoint_steps and "
                             "save_checkpoint_seconds cannot both be 0 or None")
        if self.save_checkpoint_steps:
            self.save_checkpoint_seconds = None
        self.keep_checkpoint_max = _check_int("keep_checkpoint_max", keep_checkpoint_max)
        self.keep_checkpoint_per_n_minutes = _check_int("keep_checkpoint_per_n_minutes",
                                                        keep_checkpoint_per_n_minutes)
        if self.keep_checkpoint_max:
            self.keep_checkpoint_per_n_minutes = None
        elif not self.keep_checkpoint_per_n_minutes:
            self.keep_checkpoint_max = 1
        if enc_key is not None:
            raise ValueError("CheckpointConfig: encrypted checkpoints (enc_key) are not "
                             "supported")
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"CheckpointConfig: format must be 'ckpt' or 'safetensors', got "
                             f"{format!r}")
        self.integrated_save = integrated_save
        self.async_save = async_save
        self.saved_network = saved_network
        self.append_info = self._check_append_info(append_info)
        self.exception_save = exception_save
        self.format = format

    @staticmethod
    def _check_append_info(append_info):
        if append_info is None or append_info == []:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"CheckpointConfig: append_info must be a list, got "
                            f"{type(append_info).__name__}")
        for item in append_info:
            if isinstance(item, dict):
                continue
            if item not in ("epoch_num", "step_num"):
                raise ValueError(f"CheckpointConfig: append_info entries must be 'epoch_num', "
                                 f"'step_num' or a dict, got {item!r}")
        return append_info

    def get_checkpoint_policy(self) -> dict:
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes}


class ModelCheckpoint(Callback):
    """Save checkpoints while training, as ``{prefix}-{epoch}_{step}.ckpt`` in ``directory``.

    If files of ``prefix`` already exist there, the prefix becomes ``prefix_1``,
    ``prefix_2``, ... so an earlier run's files are never overwritten (as in MindSpore). A
    last checkpoint is saved when training ends, unless that step was just saved.

    Args:
        prefix: file name prefix.
        directory: where to save (created if missing); the current directory when None.
        config: a ``CheckpointConfig`` (default: one with its defaults).
    """

    def __init__(self, prefix="CKP", directory=None, config=None, **kwargs):
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file name prefix, "
                             f"got {prefix!r}")
        if config is None:
            config = CheckpointConfig()
        if not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, got "
                            f"{type(config).__name__}")
        self._directory = os.path.abspath(directory if directory is not None else os.getcwd())
        os.makedirs(self._directory, exist_ok=True)
        self._config = config
        self._prefix = self._free_prefix(prefix)
        self._ext = ".ckpt" if config.format == "ckpt" else ".safetensors"
        self._last_saved_step = 0
        self._last_save_time = time.time()
        self._kept: list[tuple[float, str]] = []
        self._latest_ckpt_file_name = ""
        self._cb = None

    def _free_prefix(self, prefix: str) -> str:
        names = os.listdir(self._directory)
        taken = re.compile(r"^(.*)-\d+_\d+\.(ckpt|safetensors)$")
        used = {m.group(1) for m in map(taken.match, names) if m}
        candidate, n = prefix, 0
        while candidate in used:
            n += 1
            candidate = f"{prefix}_{n}"
        return candidate

    @property
    def latest_ckpt_file_name(self) -> str:
        """Path of the most recent checkpoint this callback wrote ("" before the first)."""
        return self._latest_ckpt_file_name

    def on_train_begin(self, run_context):
        cb = run_context.original_args()
        self._cb = cb
        self._last_saved_step = cb.get("cur_step_num", 0)
        self._last_save_time = time.time()
        self.begin(run_context)

    def step_end(self, run_context):
        cb = run_context.original_args()
        step = cb.cur_step_num
        if self._config.save_checkpoint_steps:
            due = step - self._last_saved_step >= self._config.save_checkpoint_steps
        else:
            due = time.time() - self._last_save_time >= self._config.save_checkpoint_seconds
        if due:
            self._save(cb)

    def end(self, run_context):
        cb = run_context.original_args()
        if cb.get("cur_step_num", 0) != self._last_saved_step:
            self._save(cb)
        wait_async_saves()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and self._config.exception_save and self._cb is not None:
            self._save(self._cb, tag="_breakpoint")
        wait_async_saves()

    def _save(self, cb, tag: str = "") -> None:
        self._cb = cb
        step = cb.cur_step_num
        batch_num = cb.get("batch_num") or 1
        step_in_epoch = (step - 1) % batch_num + 1 if step else 0
        name = f"{self._prefix}-{cb.get('cur_epoch_num', 1)}_{step_in_epoch}{tag}{self._ext}"
        path = os.path.join(self._directory, name)
        self._drop_old()
        network = self._config.saved_network or cb.get("train_network") or cb.get("network")
        save_checkpoint(network, path, integrated_save=self._config.integrated_save,
                        async_save=self._config.async_save, append_dict=self._append(cb),
                        format=self._config.format)
        self._kept = [(t, p) for t, p in self._kept if p != path] + [(time.time(), path)]
        self._latest_ckpt_file_name = path
        cb["latest_ckpt_file"] = path
        cb["last_save_ckpt_step"] = step
        self._last_saved_step = step
        self._last_save_time = time.time()

    def _append(self, cb):
        info = self._config.append_info
        if not info:
            return None
        out = {}
        for item in info:
            if item == "epoch_num":
                out["epoch_num"] = cb.get("cur_epoch_num", 0)
            elif item == "step_num":
                out["step_num"] = cb.get("cur_step_num", 0)
            else:
                out.update(item)
        return out

    def _drop_old(self) -> None:
        """Delete this run's oldest files so that the new one keeps the count in bounds."""
        cfg = self._config
        self._kept = [(t, p) for t, p in self._kept if os.path.exists(p)]
        if cfg.keep_checkpoint_max:
            while len(self._kept) >= cfg.keep_checkpoint_max:
                os.remove(self._kept.pop(0)[1])
        elif cfg.keep_checkpoint_per_n_minutes:
            # Keep the first file of every n-minute window; drop later files within it.
            window = cfg.keep_checkpoint_per_n_minutes * 60
            keep, start = [], None
            for t, p in self._kept[:-1]:
                if start is None or t - start >= window:
                    keep.append((t, p))
                    start = t
                else:
                    os.remove(p)
            self._kept = keep + self._kept[-1:]
