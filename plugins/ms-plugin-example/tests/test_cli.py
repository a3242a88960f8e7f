"""The plugin's ``microspore mish`` subcommand, registered through the CLI hook."""

import numpy as np
import pytest

from ms_plugin_example.cli import mish_command
from ms_tensor import registry


def test_mish_command_is_registered_with_help():
    entry = registry.load().entry("cli_command", "mish")
    assert entry is not None and entry.plugin == "example"
    assert entry.value is mish_command and "Mish" in entry.info["help"]


def test_mish_command_prints_values(capsys):
    assert mish_command(["-1", "0", "2.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    x = np.array([-1.0, 0.0, 2.5])
    want = x * np.tanh(np.log1p(np.exp(x)))
    assert [ln.split(" = ")[0] for ln in lines] == ["mish(-1)", "mish(0)", "mish(2.5)"]
    np.testing.assert_allclose([float(ln.split(" = ")[1]) for ln in lines], want, atol=1e-6)


def test_mish_command_rejects_non_numbers(capsys):
    with pytest.raises(SystemExit):
        mish_command(["abc"])
    assert "invalid float value" in capsys.readouterr().err
