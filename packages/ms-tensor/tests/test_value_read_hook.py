"""``value_read_hook`` reports the hook ``set_value_read_hook`` installed (ms-graph's capture
check), so operators that compute on the host can tell a capture is running."""

import numpy as np

from ms_tensor import Tensor
from ms_tensor.tensor import set_value_read_hook, value_read_hook


def test_value_read_hook_reports_the_installed_hook():
    assert value_read_hook() is None
    seen = []

    def hook(tensor, what):
        seen.append(what)

    previous = set_value_read_hook(hook)
    try:
        assert value_read_hook() is hook
        Tensor(np.ones(2)).asnumpy()
        assert seen == ["asnumpy()"]
    finally:
        set_value_read_hook(previous)
    assert value_read_hook() is None
