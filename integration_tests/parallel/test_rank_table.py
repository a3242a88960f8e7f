"""``microspore run --rank_table_file``: the launcher reads an HCCL rank table (written by
ms-device-ascend's ``microspore ascend rank-table``) and starts one rank per device, each
with RANK_ID, DEVICE_ID, RANK_SIZE and RANK_TABLE_FILE, as msrun does."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mpi4py")
rank_table = pytest.importorskip("ms_device_ascend.rank_table")

SCRIPT = Path(__file__).with_name("device_env.py")
pytestmark = pytest.mark.slow  # an MPI job


def _table(tmp_path, devices, name="hccl.json"):
    ips = {d: f"192.168.{100 + d}.101" for d in devices}
    path = tmp_path / name
    path.write_text(json.dumps(rank_table.make_rank_table("10.0.0.1", ips, devices)))
    return path


def _run(*args):
    return subprocess.run([sys.executable, "-m", "ms_parallel.run", *map(str, args)],
                          capture_output=True, text=True, timeout=240)


def test_each_rank_gets_its_device_from_the_table(tmp_path):
    table = _table(tmp_path, [4, 6])
    done = _run("--rank_table_file", table, "--init_timeout", 120, SCRIPT)
    assert done.returncode == 0, done.stdout + done.stderr
    for rank, device in ((0, 4), (1, 6)):
        assert (f"rank {rank}: RANK_ID={rank} DEVICE_ID={device} RANK_SIZE=2 "
                f"table={table.resolve()}") in done.stdout


def test_a_table_that_disagrees_or_spans_servers_is_refused(tmp_path):
    table = _table(tmp_path, [0, 1])
    done = _run("-n", 3, "--rank_table_file", table, SCRIPT)
    assert done.returncode == 2 and "--worker_num 3 but rank table" in done.stderr
    two = rank_table.merge([json.loads(table.read_text()),
                            rank_table.make_rank_table("10.0.0.2", {0: "192.168.100.102"},
                                                       [0])])
    (tmp_path / "two.json").write_text(json.dumps(two))
    done = _run("--rank_table_file", tmp_path / "two.json", SCRIPT)
    assert done.returncode == 2 and "spans 2 servers" in done.stderr
    (tmp_path / "bad.json").write_text("{not json")
    done = _run("--rank_table_file", tmp_path / "bad.json", SCRIPT)
    assert done.returncode == 2 and "bad.json: not JSON" in done.stderr
