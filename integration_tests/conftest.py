"""Markers of the integration tests (``-m "not slow"`` leaves out installs and runs)."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: installs packages or runs subprocesses (seconds)")
