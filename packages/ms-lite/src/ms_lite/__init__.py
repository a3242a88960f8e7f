"""ms-lite: microspore's deployment package.

A trained network leaves Python as a file and runs where neither autodiff, graph mode
nor nn is installed: ``ms_lite.ir`` (the graph), ``ms_lite.format`` (the .ms file),
``Model``/``Context`` (the runtime, MindSpore Lite's Python API), ``Converter`` (passes,
fusion, quantization). ``microspore_lite`` is the same package under MindSpore Lite's name.

The runtime's names load on first use, so ``import ms_lite`` stays cheap.
"""

import importlib

__version__ = "0.1.0"

_LAZY = {
    "Context": "ms_lite.runtime.context",
    "Model": "ms_lite.runtime.model",
    "ModelType": "ms_lite.runtime.model",
    "Tensor": "ms_lite.runtime.tensor",
    "DataType": "ms_lite.runtime.tensor",
    "Format": "ms_lite.runtime.tensor",
    "Converter": "ms_lite.converter.api",
    "FmkType": "ms_lite.converter.api",
    "LiteFormatError": "ms_lite.format.reader",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'ms_lite' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
