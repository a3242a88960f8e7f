"""``BackupAndRestore``: keep ``backup.ckpt`` of the training network in ``backup_dir``
every ``save_freq`` epochs; a run that starts while it exists loads it first (resuming
an interrupted job), and a run that ends deletes it unless ``delete_checkpoint=False``."""

from __future__ import annotations

import os

from ms_nn.train.callbacks.callback import Callback

__all__ = ["BackupAndRestore"]


class BackupAndRestore(Callback):
    """Back up the training network every ``save_freq`` epochs ("epoch" = every one)."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        if not isinstance(backup_dir, str) or not backup_dir:
            raise ValueError(f"BackupAndRestore: backup_dir must be a directory path, got "
                             f"{backup_dir!r}")
        if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int)
                                     or save_freq <= 0):
            raise ValueError(f"BackupAndRestore: save_freq must be 'epoch' or a positive int, "
                             f"got {save_freq!r}")
        if not isinstance(delete_checkpoint, bool):
            raise TypeError(f"BackupAndRestore: delete_checkpoint must be a bool, got "
                            f"{delete_checkpoint!r}")
        os.makedirs(backup_dir, exist_ok=True)
        self.backup_file = os.path.join(os.path.realpath(backup_dir), "backup.ckpt")
        self.save_freq = 1 if save_freq == "epoch" else save_freq
        self.delete_checkpoint = delete_checkpoint

    @staticmethod
    def _network(run_context):
        cb = run_context.original_args()
        return cb.get("train_network") or cb.get("network")

    def on_train_begin(self, run_context):
        if os.path.exists(self.backup_file):
            from ms_nn.train.checkpoint import load_checkpoint

            load_checkpoint(self.backup_file, net=self._network(run_context))

    def on_train_epoch_end(self, run_context):
        if run_context.original_args().get("cur_epoch_num", 0) % self.save_freq == 0:
            from ms_nn.train.checkpoint import save_checkpoint

            save_checkpoint(self._network(run_context), self.backup_file)

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)
