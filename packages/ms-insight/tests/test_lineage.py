import json

import pytest

from ms_insight.lineage import format_table, load_runs, read_lineage, update_lineage


def test_update_merges_nested_fields_and_converts_numbers(tmp_path):
    import numpy as np

    update_lineage(tmp_path, {"hyper_parameters": {"epoch": 2}, "metrics": {"acc": 0.5}})
    update_lineage(tmp_path, {"hyper_parameters": {"lr": np.float32(0.25)},
                              "metrics": {"acc": np.float64(0.75)}})
    assert read_lineage(tmp_path) == {"hyper_parameters": {"epoch": 2, "lr": 0.25},
                                      "metrics": {"acc": 0.75}}
    assert [p.name for p in tmp_path.iterdir()] == ["lineage.json"]  # no temporary left


def test_load_runs_finds_every_run_below_a_directory(tmp_path):
    update_lineage(tmp_path / "b", {"network": "MLP"})
    update_lineage(tmp_path / "a" / "deep", {"network": "LeNet5"})
    (tmp_path / "empty").mkdir()
    assert load_runs(tmp_path) == {"a/deep": {"network": "LeNet5"}, "b": {"network": "MLP"}}
    with pytest.raises(FileNotFoundError, match="not a directory"):
        load_runs(tmp_path / "missing")
    (tmp_path / "b" / "lineage.json").write_text("[1]")
    with pytest.raises(ValueError, match="lineage.json: not a lineage file"):
        load_runs(tmp_path)


def test_table_puts_known_fields_first_and_marks_missing_ones():
    text = format_table({"r1": {"optimizer": "SGD", "network": "A", "zeta": 1.23456789},
                         "r2": {"network": "B", "metrics": {"acc": 0.5}}})
    header, r1, r2 = text.splitlines()
    assert header.split() == ["run", "network", "optimizer", "metrics.acc", "zeta"]
    assert r1.split() == ["r1", "A", "SGD", "-", "1.23457"]
    assert r2.split() == ["r2", "B", "-", "0.5", "-"]


def _cli(capsys, *args):
    """``microspore insight ARGS``, through the command the plugin registered."""
    from types import SimpleNamespace

    from ms_tensor import registry

    command = registry.load().lookup("cli_command", "insight")
    code = command(list(args))
    out, err = capsys.readouterr()
    return SimpleNamespace(returncode=code or 0, stdout=out, stderr=err)


def test_cli_prints_the_comparison_table(tmp_path, capsys):
    update_lineage(tmp_path / "run1", {"network": "LeNet5", "metrics": {"accuracy": 0.9}})
    update_lineage(tmp_path / "run2", {"network": "LeNet5", "metrics": {"accuracy": 0.95}})
    done = _cli(capsys, "lineage", str(tmp_path), "--fields", "metrics")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["run", "metrics.accuracy", "run1", "0.9", "run2", "0.95"]
    done = _cli(capsys, "lineage", str(tmp_path), "--json")
    assert json.loads(done.stdout)["run2"]["metrics"] == {"accuracy": 0.95}
    done = _cli(capsys, "lineage", str(tmp_path / "nothing"))
    assert done.returncode == 1 and "not a directory" in done.stderr
    done = _cli(capsys, "nonsense")
    assert done.returncode == 2 and "unknown subcommand 'nonsense'" in done.stderr
