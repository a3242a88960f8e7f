"""Let the tests run from a checkout as well as from an installed plugin.

Installed, microspore finds the plugin through its entry point, and ``register_plugin``
below does nothing (a plugin named ``example`` is already loaded). From a checkout, the
source directory goes on the path and the plugin is registered by hand.
"""

import sys
from pathlib import Path

import pytest

from ms_tensor import registry

try:
    import ms_plugin_example  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))


@pytest.fixture(scope="session", autouse=True)
def example_plugin():
    from ms_plugin_example import plugin

    registry.register_plugin(plugin, "example")
    yield plugin
    registry.unregister_plugin("example")
