import pytest

import ms_tensor as mt
from ms_tensor import registry
from ms_tensor.backend import Backend
from ms_tensor.hookspecs import hookimpl


@pytest.fixture(autouse=True)
def _fresh_context():
    mt.reset_context()
    yield
    mt.reset_context()


def test_defaults_are_mindspore_defaults():
    assert mt.get_context("mode") == mt.PYNATIVE_MODE == 1
    assert mt.GRAPH_MODE == 0
    assert mt.get_context("device_target") == "CPU"
    assert mt.get_context("device_id") == 0


def test_set_then_get():
    mt.set_context(mode=mt.GRAPH_MODE, save_graphs=True)
    assert mt.get_context("mode") == mt.GRAPH_MODE
    assert mt.get_context("save_graphs") is True
    mt.context.set_context(mode=mt.context.PYNATIVE_MODE)
    assert mt.context.get_context("mode") == mt.PYNATIVE_MODE


def test_reset_restores_defaults():
    mt.set_context(mode=mt.GRAPH_MODE, runtime_num_threads=3)
    mt.reset_context()
    assert mt.get_context("mode") == mt.PYNATIVE_MODE
    assert mt.get_context("runtime_num_threads") is None


def test_unknown_keys_are_errors():
    with pytest.raises(ValueError, match=r"set_context: unknown setting 'foo'; known settings: "
                                         r".*device_target"):
        mt.set_context(foo=1)
    with pytest.raises(ValueError, match="get_context: unknown setting 'bar'"):
        mt.get_context("bar")


@pytest.mark.parametrize("kwargs,match", [
    ({"mode": 5}, r"mode must be GRAPH_MODE \(0\) or PYNATIVE_MODE \(1\), got 5"),
    ({"mode": "graph"}, "got 'graph'"),
    ({"device_id": -1}, "device_id must be a non-negative int, got -1"),
    ({"device_id": True}, "got True"),
    ({"device_id": 1}, r"device_id 1 does not exist: device_target 'CPU' has 1 device"),
    ({"deterministic": "on"}, "deterministic must be 'ON' or 'OFF', got 'on'"),
    ({"runtime_num_threads": -2}, "runtime_num_threads must be an int >= 0"),
    ({"runtime_num_threads": 2.5}, "runtime_num_threads must be an int >= 0"),
    ({"max_call_depth": 0}, "max_call_depth must be a positive int"),
    ({"pynative_synchronize": 1}, "pynative_synchronize must be True or False"),
    ({"enable_graph_kernel": "yes"}, "enable_graph_kernel must be True or False"),
    ({"check_bprop": None}, "check_bprop must be True or False"),
    ({"save_graphs": 7}, "save_graphs must be a bool or 0-3"),
    ({"save_graphs_path": 3}, "save_graphs_path must be a path"),
    ({"jit_config": {"jit_level": "O2"}}, r"jit_level must be one of \('O0', 'O1'\)"),
    ({"jit_config": {"infer_boost": "on"}}, "infer_boost='on' needs Ascend"),
    ({"jit_config": {"exec_mode": 1}}, "jit_config key 'exec_mode' is not supported"),
    ({"max_device_memory": "4GB"}, "device_target 'CPU' has none"),
    ({"max_device_memory": "lots"}, "max_device_memory must look like"),
])
def test_bad_values_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mt.set_context(**kwargs)


def test_a_rejected_call_changes_nothing():
    with pytest.raises(ValueError):
        mt.set_context(device_id=2, mode=7)
    assert mt.get_context("device_id") == 0


def test_device_target_must_be_a_registered_backend():
    with pytest.raises(ValueError, match=r"device_target 'NoSuchDevice' is not available; "
                                         r"registered backends: .*CPU"):
        mt.set_context(device_target="NoSuchDevice")
    mt.set_context(device_target="CPU")


class _FakeBackend(Backend):
    name = "FakeDevice"


class _FakeDevicePlugin:
    @hookimpl
    def ms_register_backends(self, registry):
        registry.add_backend(_FakeBackend())


def test_device_plugin_makes_its_target_available():
    registry.register_plugin(_FakeDevicePlugin(), "fake-device")
    try:
        mt.set_context(device_target="FakeDevice")
        assert mt.get_context("device_target") == "FakeDevice"
    finally:
        registry.unregister_plugin("fake-device")
    with pytest.raises(ValueError, match="'FakeDevice' is not available"):
        mt.set_context(device_target="FakeDevice")


def test_every_key_is_checked():
    """No key is only stored: each has a check here (their users are tested where they
    live: threads in ms-ops, fusion levels in ms-graph, check_bprop in ms-autodiff)."""
    from ms_tensor.context import _CHECKS, _DEFAULTS

    assert set(_CHECKS) == set(_DEFAULTS)


def test_accepted_values_are_stored():
    mt.set_context(deterministic="ON", pynative_synchronize=True, enable_graph_kernel=False,
                   jit_config={"jit_level": "O0"}, runtime_num_threads=0, check_bprop=True,
                   save_graphs=2)
    assert mt.get_context("deterministic") == "ON"
    assert mt.get_context("jit_config") == {"jit_level": "O0"}
    assert mt.get_context("enable_graph_kernel") is False


def test_max_call_depth_raises_pythons_recursion_limit():
    import sys

    old = sys.getrecursionlimit()
    try:
        mt.set_context(max_call_depth=old + 500)
        assert sys.getrecursionlimit() == old + 500
        mt.set_context(max_call_depth=10)  # smaller: Python's limit is left alone
        assert sys.getrecursionlimit() == old + 500
    finally:
        sys.setrecursionlimit(old)


def test_watchers_hear_changes_and_resets():
    from ms_tensor.context import on_change

    heard = []
    on_change("save_graphs_path", heard.append)
    mt.set_context(save_graphs_path="/tmp/x")
    mt.set_context(save_graphs_path="/tmp/x")  # unchanged: not heard again
    mt.reset_context()
    assert heard == ["/tmp/x", "."]
    with pytest.raises(ValueError, match="on_change: unknown setting 'nope'"):
        on_change("nope", print)
