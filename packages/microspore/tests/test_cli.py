"""The ``microspore`` command: built-in ``info``, plugin subcommands through the hook."""

from __future__ import annotations

import re
import subprocess
import sys
import types

import pytest

from microspore import cli
from ms_tensor import registry
from ms_tensor.hookspecs import hookimpl


@pytest.fixture
def plugin_with_command():
    calls = []

    def hello(argv):
        calls.append(argv)
        print("hello", *argv)
        return 3

    plugin = types.SimpleNamespace()

    @hookimpl
    def ms_register_cli_commands(registry):
        registry.add_cli_command("hello", hello, help="say hello")

    plugin.ms_register_cli_commands = ms_register_cli_commands
    registry.register_plugin(plugin, "test-cli")
    yield calls
    registry.unregister_plugin("test-cli")


def test_info_lists_packages_and_registry(capsys):
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    for name in ("ms-tensor", "ms-ops", "ms-autodiff", "ms-data", "microspore"):
        assert f"  {name} " in out
    assert "registry:" in out and "primitive (" in out and "[ops] " in out
    assert "MatMul" in out and "CPU" in out
    assert "matrix products: mkl (" in out or "matrix products: numpy" in out


def test_info_shows_threads_and_tuning(capsys):
    import ms_tensor as mt

    mt.set_context(runtime_num_threads=3)
    try:
        assert cli.main(["info"]) == 0
    finally:
        mt.reset_context()
    out = capsys.readouterr().out
    assert "threads: 3 (set_context(runtime_num_threads))" in out
    assert "malloc: " in out and "openmp waiting: " in out


def test_info_lines_match_the_registry(capsys):
    assert cli.main(["info", "--lines"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(registry.load().entries())
    assert "kernel MatMul CPU ops" in lines


def test_plugin_subcommand_runs_with_its_arguments(plugin_with_command, capsys):
    assert cli.main(["hello", "a", "--b"]) == 3
    assert plugin_with_command == [["a", "--b"]]
    assert capsys.readouterr().out == "hello a --b\n"


def test_help_lists_plugin_commands_with_their_plugin(plugin_with_command, capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    # one line per command, its help after the padded name column
    assert re.search(r"^\s*hello +say hello \[test-cli\]$", out, re.M) and "info " in out


def test_unknown_command_is_an_error_that_lists_commands(capsys):
    assert cli.main(["frobnicate"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'frobnicate'" in err and "info" in err


def test_a_plugin_cannot_take_a_builtin_name():
    plugin = types.SimpleNamespace()

    @hookimpl
    def ms_register_cli_commands(registry):
        registry.add_cli_command("info", lambda argv: 0)

    plugin.ms_register_cli_commands = ms_register_cli_commands
    registry.register_plugin(plugin, "test-cli-clash")
    try:
        with pytest.raises(registry.RegistrationError, match="'test-cli-clash'.*'info'"):
            cli.main(["info"])
    finally:
        registry.unregister_plugin("test-cli-clash")


def test_command_names_must_be_one_word():
    view = registry.Registry().view("p")
    with pytest.raises(registry.RegistrationError, match="unusable name '--x'"):
        view.add_cli_command("--x", lambda argv: 0)
    with pytest.raises(registry.RegistrationError, match="unusable name 'a b'"):
        view.add_cli_command("a b", lambda argv: 0)


def test_console_script_and_module_entry():
    out = subprocess.run([sys.executable, "-m", "microspore", "--version"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("microspore 0.1")


def test_a_broken_plugin_command_breaks_only_itself(capsys):
    plugin = types.SimpleNamespace()

    @hookimpl
    def ms_register_cli_commands(registry):
        registry.add_cli_command("broken", "no_such_module_here:main", help="never imports")

    plugin.ms_register_cli_commands = ms_register_cli_commands
    registry.register_plugin(plugin, "test-broken-cli")
    try:
        assert cli.main(["--help"]) == 0
        assert re.search(r"^\s*broken +never imports \[test-broken-cli\]$",
                         capsys.readouterr().out, re.M)
        assert cli.main(["info", "--lines"]) == 0
        with pytest.raises(ImportError, match="no_such_module_here"):
            cli.main(["broken"])
    finally:
        registry.unregister_plugin("test-broken-cli")
