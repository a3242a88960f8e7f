import json

import numpy as np
import pytest

from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_parallel.auto.checkpoint import merge_checkpoints
from ms_parallel.auto.layout import strategy_layout
from ms_parallel.auto.simulate import local_slice
from ms_tensor import Tensor


def _write(tmp_path, full, layout, tamper=False):
    data = {"device_num": layout.device_num, "parameters": {"w": {
        "shape": list(full.shape), "dev_matrix": list(layout.dev_matrix),
        "tensor_map": [list(a) for a in layout.tensor_map]}}}
    (tmp_path / "layouts.json").write_text(json.dumps(data))
    for r in range(layout.device_num):
        piece = local_slice(full, layout, r) + (1.0 if tamper and r == 3 else 0.0)
        save_checkpoint([{"name": "w", "data": Tensor(piece)}], str(tmp_path / f"rank_{r}.ckpt"))


def test_merge_places_every_rank_slice(tmp_path):
    full = np.arange(24.0).reshape(4, 6)
    _write(tmp_path, full, strategy_layout((2, 1), 4))  # 2 slices, each on 2 ranks
    merge_checkpoints(tmp_path, tmp_path / "whole.ckpt")
    np.testing.assert_array_equal(load_checkpoint(str(tmp_path / "whole.ckpt"))["w"].asnumpy(),
                                  full)


def test_merge_refuses_disagreeing_replicas_and_missing_ranks(tmp_path):
    full = np.arange(24.0).reshape(4, 6)
    _write(tmp_path, full, strategy_layout((2, 1), 4), tamper=True)
    with pytest.raises(ValueError, match="Parameter 'w': .*replica differs"):
        merge_checkpoints(tmp_path, tmp_path / "whole.ckpt")
    (tmp_path / "rank_2.ckpt").unlink()
    with pytest.raises(FileNotFoundError, match="rank_2.ckpt is missing"):
        merge_checkpoints(tmp_path, tmp_path / "whole.ckpt")
    (tmp_path / "layouts.json").unlink()
    with pytest.raises(FileNotFoundError, match="layouts.json is missing"):
        merge_checkpoints(tmp_path, tmp_path / "whole.ckpt")
