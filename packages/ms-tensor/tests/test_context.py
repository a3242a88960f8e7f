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
    mt.set_context(mode=mt.GRAPH_MODE, device_id=3)
    mt.reset_context()
    assert mt.get_context("mode") == mt.PYNATIVE_MODE and mt.get_context("device_id") == 0


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
