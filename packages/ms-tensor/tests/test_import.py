import json
import subprocess
import sys

_PROBE = """
import json, sys
import numpy as np
import ms_tensor
from ms_tensor import registry
t = ms_tensor.Tensor(np.ones((2, 2), np.float32))
text = repr(t) + str(t) + repr(ms_tensor.Parameter(t, name="w"))
ms_tensor.set_context(mode=ms_tensor.GRAPH_MODE)
print(json.dumps({"modules": sorted(sys.modules), "loaded": registry.loaded() is not None}))
"""


def test_import_loads_no_plugin_and_no_operator_package():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    mods = state["modules"]
    assert state["loaded"] is False
    assert not [m for m in mods if m == "ms_ops" or m.startswith("ms_ops.")]
    assert "ms_tensor.plugin" not in mods
    assert "pyarrow" not in mods
