"""Every registered operator, from every plugin, against finite differences.

The list comes from the registry, so an operator added by ms-ops or by a third-party
plugin is checked without anyone editing this file; one without samples fails.
"""

import pytest

from ms_autodiff.testing import check_op_gradients
from ms_tensor import registry

_ENTRIES = registry.load().entries("primitive")


@pytest.mark.parametrize("entry", _ENTRIES, ids=[e.name for e in _ENTRIES])
def test_operator_gradient(entry):
    reg = registry.load()
    op = entry.value
    if op.differentiable:
        assert reg.bprop(op) is not None, \
            f"{op.name} (plugin {entry.plugin!r}) is differentiable but has no gradient rule"
    if getattr(op, "talks_back", False):
        pytest.skip(f"{op.name} exchanges its gradient with a peer rank, which one process "
                    "cannot check alone: ms-parallel's tests check it against finite "
                    "differences of the whole job's objective on 2 ranks")
    samples = reg.lookup("op_sample", op.name)
    if samples is None:
        pytest.fail(f"{op.name} (plugin {entry.plugin!r}) has no sample inputs: register "
                    "them with @Op.samples next to its definition")
    check_op_gradients(op, samples)
