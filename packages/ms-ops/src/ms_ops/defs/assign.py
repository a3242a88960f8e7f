"""In-place assignment to a Parameter: Assign, AssignAdd, AssignSub (MindSpore's names).

Optimizers and counters update their state through these operators instead of writing
numpy arrays, so every update is an operator call that a graph trace sees and replays.
"""

from __future__ import annotations

import numpy as np

from ms_ops.infer import broadcast_shapes
from ms_ops.opdef import ALL, NUMBERS, Arg, OpDef, TensorSpec


def _assign_infer(variable, value):
    if broadcast_shapes(variable, value, names=("variable", "value")) != variable.shape:
        raise ValueError(f"value shape {value.shape} does not fit variable shape "
                         f"{variable.shape}")
    return TensorSpec(variable.shape, variable.dtype)


_ARGS = (Arg("variable", promote=False), Arg("value", promote=False))


# Samples for the in-place assignments (they only need to run).
def _assign(rng):
    yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((2, 3)), rng.standard_normal((3,))), {}


Assign = OpDef("Assign", _ARGS, infer=_assign_infer, differentiable=False, inplace=0,
               doc="variable[...] = value (cast to variable's dtype); returns variable.",
               functional="assign")


@Assign.kernel("CPU", dtypes=ALL)
def assign_cpu(variable, value):
    np.copyto(variable, value, casting="unsafe")
    return variable


Assign.samples(_assign)


AssignAdd = OpDef("AssignAdd", _ARGS, infer=_assign_infer, differentiable=False, inplace=0,
                  doc="variable += value, in place; returns variable.", functional="assign_add")


@AssignAdd.kernel("CPU", dtypes=NUMBERS)
def assign_add_cpu(variable, value):
    np.add(variable, value, out=variable, casting="unsafe")
    return variable


AssignAdd.samples(_assign)


AssignSub = OpDef("AssignSub", _ARGS, infer=_assign_infer, differentiable=False, inplace=0,
                  doc="variable -= value, in place; returns variable.", functional="assign_sub")


@AssignSub.kernel("CPU", dtypes=NUMBERS)
def assign_sub_cpu(variable, value):
    np.subtract(variable, value, out=variable, casting="unsafe")
    return variable


AssignSub.samples(_assign)
