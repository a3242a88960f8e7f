"""ms-nn: microspore's networks (MindSpore's ``mindspore.nn``): ``Cell``, containers,
initializers, layers, losses, optimizers, training wrappers, and ``Model`` with its
callbacks, metrics and checkpoints.

``Cell``, the containers and the initializers import with the package; layers, losses,
optimizers, wrappers and training load on first use (``ms_nn.Dense``), so
``import ms_nn`` stays cheap.
"""

import importlib

# ``X as X``: explicit re-exports (``__all__`` is computed in ``__getattr__``).
from ms_nn import initializer as initializer
from ms_nn.cell import Cell as Cell
from ms_nn.containers import CellDict as CellDict
from ms_nn.containers import CellList as CellList
from ms_nn.containers import SequentialCell as SequentialCell
from ms_nn.hooks import HookHandle as HookHandle

__version__ = "0.1.0"

# Modules whose ``__all__`` names ms_nn re-exports, in lookup order. Each owner extends
# the public API by editing its own module, not this file.
_API_MODULES = ("ms_nn._layers_api", "ms_nn.layers.activation_extra", "ms_nn.layers.padding",
                "ms_nn.layers.reshaping", "ms_nn.loss.loss_extra", "ms_nn.optim", "ms_nn.wrap",
                "ms_nn._train_api", "ms_nn.amp", "ms_nn.layers.nn_more_api")

# MindSpore's submodule names under ``nn`` that live elsewhere here.
_SUBMODULES = {
    "layer": "ms_nn.layers",
    "learning_rate_schedule": "ms_nn.optim.learning_rate_schedule",
    "dynamic_lr": "ms_nn.optim.dynamic_lr",
    "layers": "ms_nn.layers",
    "loss": "ms_nn.loss",
    "optim": "ms_nn.optim",
    "wrap": "ms_nn.wrap",
    "train": "ms_nn.train",
    "metrics": "ms_nn.train.metrics",
    "grad": "ms_nn.wrap.grad_cells",
}

_CORE = ["Cell", "CellList", "SequentialCell", "CellDict", "HookHandle", "initializer"]


def _lazy_names() -> dict:
    names = {}
    for modname in _API_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            names.setdefault(name, module)
    return names


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = importlib.import_module(_SUBMODULES[name])
        globals()[name] = module
        return module
    if name == "__all__":  # computed on demand, so ``from ms_nn import *`` gets every name
        return _CORE + [n for n in _lazy_names() if n not in _CORE]
    if name.startswith("__"):
        raise AttributeError(f"module 'ms_nn' has no attribute {name!r}")
    module = _lazy_names().get(name)
    if module is None:
        raise AttributeError(f"module 'ms_nn' has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES) | set(_lazy_names()))
