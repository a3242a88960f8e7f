"""``microspore ascend check``, ``doctor`` and ``rank-table``."""

import json
import os
from pathlib import Path

import pytest

from ms_device_ascend import rank_table as rt
from ms_device_ascend.check import check_script, format_report
from ms_device_ascend.check.analyze import analyze
from ms_device_ascend.cli import main
from ms_device_ascend.doctor import ERROR, OK, doctor, format_checks

SCRIPTS = Path(__file__).resolve().parent / "scripts"


# -- check --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def float64_report():
    return check_script(str(SCRIPTS / "float64_conv.py"), seconds=60)


def test_check_reports_the_float64_conv_as_an_error(float64_report):
    r = float64_report
    assert r.status["done"] == "completed"
    errors = [(f.op, f.site.rsplit(":", 1)[1]) for f in r.errors]
    assert errors == [("Conv2D", "21")]
    assert "no float64" in r.errors[0].message


def test_check_reports_ai_cpu_operators_float64_fallbacks_and_dynamic_shapes(float64_report):
    warnings = {(f.op, f.message.split(":")[0]) for f in float64_report.findings
                if f.level == "warning"}
    assert ("StandardNormal", "no AI Core kernel") in warnings
    assert ("Cast", "float64") in warnings
    assert ("Conv2D", "dynamic shape") in warnings and ("Dense", "dynamic shape") in warnings
    text = format_report(float64_report, "float64_conv.py")
    assert "result: FAIL (1 errors)" in text and "no Ascend hardware used" in text


def _line(finding) -> int:
    return int(finding.site.split(" ")[0].rsplit(":", 1)[1])


def test_check_sees_operators_inside_tensor_dependent_branches():
    r = check_script(str(SCRIPTS / "branch_conv.py"), seconds=60)
    assert r.status["done"] == "completed"
    # each at its line inside the branch, not at the user's call (net(x), line 29)
    assert [(f.op, _line(f)) for f in r.errors] == [("Conv2D", 20)]
    assert "inside a tensor-dependent if/while compiled in Net.construct" in r.errors[0].site
    assert r.param_bytes == 4 * 9 * 8  # the Conv's float64 weight, read only in the branch
    branch = {(f.op, _line(f)) for f in r.findings if "inside a tensor-dependent" in f.site}
    assert {("Conv2D", 20), ("Tile", 22), ("Mul", 22)} <= branch


def test_check_reports_a_loop_body_operator_at_its_line():
    r = check_script(str(SCRIPTS / "while_matmul.py"), seconds=60)
    assert r.status["done"] == "completed"
    assert [(f.op, _line(f)) for f in r.errors] == [("MatMul", 19)]  # the call is line 24
    assert "inside a tensor-dependent if/while" in r.errors[0].site
    assert r.param_bytes == 9 * 8


def test_check_cli_exit_status_and_json(capsys):
    assert main(["check", "--json", str(SCRIPTS / "float64_conv.py")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["chip"] == "910B" and report["hbm_bytes"] == 64 << 30
    assert 0 < report["peak_bytes"] < 1 << 20


def test_a_failing_script_is_an_incomplete_check(tmp_path, capsys):
    script = tmp_path / "bad.py"
    script.write_text("import numpy as np\nfrom ms_ops import functional as F\n"
                      "from ms_tensor import Tensor\n"
                      "F.add(Tensor(np.ones(2)), 1)\nraise RuntimeError('boom')\n")
    assert main(["check", str(script)]) == 2
    out = capsys.readouterr().out
    assert "RuntimeError: boom" in out and "INCOMPLETE" in out
    with pytest.raises(FileNotFoundError):
        check_script(str(tmp_path / "missing.py"))


def test_memory_against_the_chips_hbm():
    lines = [json.dumps({"param": "w", "bytes": 27 << 30}),
             json.dumps({"step_bytes": 13 << 30}), json.dumps({"done": "completed"})]
    assert [f.level for f in analyze(lines, "910B4").findings] == ["error"]
    assert [f.level for f in analyze(lines, "910B").findings] == []
    assert [f.level for f in analyze(lines[:1] + lines[2:], "910B4").findings] == ["warning"]
    with pytest.raises(ValueError, match="unknown chip 'H100'"):
        analyze(lines, "H100")


# -- doctor -------------------------------------------------------------------------------
def _cann_root(tmp_path, devices=2):
    home = tmp_path / "usr/local/Ascend/ascend-toolkit/latest"
    (home / "lib64").mkdir(parents=True)
    (home / "opp").mkdir()
    (home / "version.cfg").write_text("runtime_running_version=[8.0.RC2:8.0.RC2]\n"
                                      "version=8.0.RC2\n")
    (tmp_path / "usr/local/Ascend/driver").mkdir(parents=True)
    (tmp_path / "dev").mkdir()
    for i in range(devices):
        (tmp_path / "dev" / f"davinci{i}").write_text("")
    env = {"ASCEND_HOME_PATH": "/usr/local/Ascend/ascend-toolkit/latest",
           "LD_LIBRARY_PATH": "/usr/local/Ascend/ascend-toolkit/latest/lib64",
           "ASCEND_OPP_PATH": "/usr/local/Ascend/ascend-toolkit/latest/opp", "PATH": ""}
    return env


def by_name(checks):
    return {c.name: c for c in checks}


def test_doctor_on_a_machine_without_ascend(tmp_path):
    checks = by_name(doctor({}, root=str(tmp_path)))
    assert checks["CANN"].level == ERROR and "set_env.sh" in checks["CANN"].advice
    assert checks["devices"].level == ERROR
    assert "EMULATION" in checks["microspore"].message


def test_doctor_on_a_good_single_device_setup(tmp_path):
    env = _cann_root(tmp_path)
    checks = doctor({**env, "DEVICE_ID": "1"}, root=str(tmp_path))
    named = by_name(checks)
    assert named["CANN"].level == OK and "8.0.RC2" in named["CANN"].message
    assert named["devices"].message.startswith("2 NPU")
    assert not [c for c in checks if c.level == ERROR]
    assert "no problems found" in format_checks(checks)


def test_doctor_finds_rank_environment_mistakes(tmp_path):
    env = _cann_root(tmp_path)
    table = tmp_path / "hccl.json"
    table.write_text(json.dumps(rt.make_rank_table(
        "10.0.0.1", {0: "192.168.100.101", 1: "192.168.101.101"})))
    cases = [
        ({"DEVICE_ID": "5"}, "DEVICE_ID", "not one of this host's devices 0-1"),
        ({"RANK_ID": "0"}, "RANK_SIZE", "RANK_SIZE is not"),
        ({"RANK_SIZE": "2", "RANK_ID": "2", "RANK_TABLE_FILE": str(table)}, "RANK_ID",
         "not in 0..1"),
        ({"RANK_SIZE": "2", "RANK_ID": "0"}, "RANK_TABLE_FILE", "no RANK_TABLE_FILE"),
        ({"RANK_SIZE": "4", "RANK_ID": "0", "RANK_TABLE_FILE": str(table)},
         "RANK_TABLE_FILE", "lists 2 ranks but RANK_SIZE=4"),
        ({"RANK_SIZE": "2", "RANK_ID": "1", "DEVICE_ID": "0",
          "RANK_TABLE_FILE": str(table)}, "DEVICE_ID", "gives rank 1 device 1"),
        ({"DEVICE_ID": "x"}, "DEVICE_ID", "not an integer"),
    ]
    for extra, name, text in cases:
        errors = [c for c in doctor({**env, **extra}, root=str(tmp_path)) if c.level == ERROR]
        assert [c.name for c in errors] == [name], (extra, errors)
        assert text in errors[0].message
    good = doctor({**env, "RANK_SIZE": "2", "RANK_ID": "1", "DEVICE_ID": "1",
                   "RANK_TABLE_FILE": str(table)}, root=str(tmp_path))
    assert by_name(good)["RANK_TABLE_FILE"].level == OK


# -- rank tables --------------------------------------------------------------------------
def test_rank_table_from_hccn_conf_and_merge(tmp_path):
    conf = tmp_path / "hccn.conf"
    conf.write_text("".join(f"address_{i}=192.168.10{i}.101\nnetmask_{i}=255.255.255.0\n"
                            for i in range(8)))
    out = tmp_path / "a.json"
    assert main(["rank-table", "--server-ip", "10.0.0.1", "--devices", "0-3",
                 "--hccn-conf", str(conf), "-o", str(out)]) == 0
    a = json.loads(out.read_text())
    assert a["server_count"] == "1" and a["status"] == "completed"
    assert [d["device_ip"] for d in a["server_list"][0]["device"]] == \
        [f"192.168.10{i}.101" for i in range(4)]
    b = rt.make_rank_table("10.0.0.2", rt.read_hccn_conf(str(conf)), [4, 5])
    (tmp_path / "b.json").write_text(json.dumps(b))
    merged = tmp_path / "m.json"
    assert main(["rank-table", "--merge", str(out), str(tmp_path / "b.json"),
                 "-o", str(merged)]) == 0
    ranks = rt.load_rank_table(str(merged))
    assert [(r.rank_id, r.server_id, r.device_id) for r in ranks] == \
        [(0, "10.0.0.1", 0), (1, "10.0.0.1", 1), (2, "10.0.0.1", 2), (3, "10.0.0.1", 3),
         (4, "10.0.0.2", 4), (5, "10.0.0.2", 5)]


def test_rank_table_errors(tmp_path, capsys):
    with pytest.raises(ValueError, match="no IP for device"):
        rt.make_rank_table("10.0.0.1", {0: "1.2.3.4"}, [0, 1])
    with pytest.raises(ValueError, match="distinct ids 0-7"):
        rt.parse_devices("0-8")
    bad = {"version": "1.0", "server_count": "2", "status": "completed",
           "server_list": [{"server_id": "a", "device": [
               {"device_id": "0", "device_ip": "1.2.3.4", "rank_id": "1"},
               {"device_id": "0", "device_ip": "nope", "rank_id": "0"}]}]}
    problems = " | ".join(rt.validate(bad))
    assert "server_count is '2'" in problems and "bad device entry" in problems
    assert "rank_ids must be 0..0" in problems
    path = tmp_path / "bad.json"
    path.write_text("{")
    with pytest.raises(ValueError, match="not JSON"):
        rt.load_rank_table(str(path))
    assert main(["rank-table", "--devices", "0"]) == 2
    assert "--server-ip is required" in capsys.readouterr().err
    assert os.path.basename(rt.__file__) == "rank_table.py"
