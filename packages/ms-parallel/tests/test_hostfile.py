"""Host files: parsing, errors naming file and line, and a job over a host file whose
machines are all this one (localhost and this machine's own name, as Hydra sees them)."""

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ms_parallel.hostfile import read_hostfile
from ms_parallel.launch import LaunchError, launch
from ms_parallel.run import main

HELLO = Path(__file__).parent / "scripts" / "management.py"


def test_parse(tmp_path):
    f = tmp_path / "hosts"
    f.write_text("# cluster\n\nnode-1:4\nnode2.example.org  # one slot\n10.0.0.3:2\n")
    assert read_hostfile(f) == [("node-1", 4), ("node2.example.org", 1), ("10.0.0.3", 2)]


@pytest.mark.parametrize("text, msg", [("node1:0\n", "line 1"), ("ok\nno good\n", "line 2"),
                                       ("# nothing\n", "names no host")])
def test_bad_files_name_file_and_line(tmp_path, text, msg):
    f = tmp_path / "hosts"
    f.write_text(text)
    with pytest.raises(ValueError, match=msg):
        read_hostfile(f)
    with pytest.raises(LaunchError, match=msg):
        launch(str(HELLO), worker_num=1, hostfile=str(f))
    assert main(["--hostfile", str(f), str(HELLO)]) == 2


def test_local_worker_num_without_hostfile_is_refused(capsys):
    assert main(["-n", "2", "--local_worker_num", "1", str(HELLO)]) == 2
    assert "--hostfile" in capsys.readouterr().err


def test_job_over_local_hosts(tmp_path):
    f = tmp_path / "hosts"
    f.write_text(f"localhost:1\n{socket.gethostname()}:1\n")
    script = tmp_path / "hello.py"
    script.write_text("from ms_parallel.management import init, get_rank, get_group_size\n"
                      "init()\nprint(f'rank {get_rank()} of {get_group_size()} here', "
                      "flush=True)\n")
    done = subprocess.run([sys.executable, "-m", "ms_parallel.run", "--hostfile", str(f),
                           "--local_worker_num", "1", "--timeout", "100", str(script)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 0 of 2 here" in done.stdout and "rank 1 of 2 here" in done.stdout
