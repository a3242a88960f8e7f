"""MindSpore Lite's ``Model``: build from a .ms file, then ``predict`` on numpy inputs."""

from __future__ import annotations

import enum
import os

from ms_lite.format import load
from ms_lite.runtime.context import Context
from ms_lite.runtime.executor import Executor
from ms_lite.runtime.plan import Plan
from ms_lite.runtime.shapes import resized
from ms_lite.runtime.tensor import Tensor

__all__ = ["Model", "ModelType"]


class ModelType(enum.Enum):
    MINDIR = 0  # MindSpore Lite's name for its converted model, too
    MINDIR_LITE = 4


class Model:
    """A converted model, ready to run.

    >>> import numpy as np, tempfile, os
    >>> from ms_lite.ir import Graph, Node, Value
    >>> from ms_lite.format import save
    >>> g = Graph([Value("x", (1, 3), "float32")], [Value("y", (1, 3), "float32")],
    ...           [Node("ReLU", ["x"], ["y"], {}, "relu")], {})
    >>> path = os.path.join(tempfile.mkdtemp(), "relu.ms")
    >>> _ = save(g, path)
    >>> from ms_lite import Context, Model, ModelType
    >>> model = Model()
    >>> model.build_from_file(path, ModelType.MINDIR_LITE, Context())
    >>> inputs = model.get_inputs()
    >>> inputs[0].set_data_from_numpy(np.array([[-1, 0, 2]], np.float32))
    >>> model.predict(inputs)[0].get_data_to_numpy()
    array([[0., 0., 2.]], dtype=float32)
    """

    def __init__(self):
        self._graph = None
        self._exec = None
        self._run = None
        self._inputs: list[Tensor] = []
        self._outputs: list[Tensor] = []
        self.context = None
        self.meta: dict = {}

    def build_from_file(self, model_path, model_type=ModelType.MINDIR_LITE,
                        context: Context | None = None, config_path: str = "") -> None:
        """Load ``model_path`` (a .ms file the converter wrote) and plan it."""
        if not isinstance(model_type, ModelType):
            raise TypeError(f"build_from_file: model_type must be a ModelType, got "
                            f"{model_type!r}")
        if context is not None and not isinstance(context, Context):
            raise TypeError(f"build_from_file: context must be a Context, got "
                            f"{type(context).__name__}")
        path = os.fspath(model_path)
        self._graph, self.meta = load(path)
        self.context = context or Context()
        self._plan([v.shape for v in self._graph.inputs])

    def _plan(self, shapes) -> None:
        graph = self._graph if shapes == [v.shape for v in self._graph.inputs] \
            else resized(self._graph, shapes)
        self._exec = Executor(graph, shapes)
        self._run = Plan(self._exec, self.context.cpu.thread_num)
        self._inputs = [Tensor(v.name, s.shape, s.dtype.np)
                        for v, s in zip(graph.inputs, self._exec.input_specs)]
        for t, buf in zip(self._inputs, self._run.inputs):
            t._buffer = buf
        self._outputs = [Tensor(v.name, s.shape, s.dtype.np)
                         for v, s in zip(graph.outputs, self._exec.output_specs)]

    def _built(self) -> None:
        if self._exec is None:
            raise RuntimeError("Model: call build_from_file first")

    def get_inputs(self) -> list[Tensor]:
        self._built()
        return list(self._inputs)

    def get_outputs(self) -> list[Tensor]:
        self._built()
        return list(self._outputs)

    def resize(self, inputs: list[Tensor], dims: list[list[int]]) -> None:
        """Plan the model for new input shapes (``dims``, one per input)."""
        self._built()
        if len(inputs) != len(self._inputs) or len(dims) != len(self._inputs):
            raise ValueError(f"Model.resize: the model has {len(self._inputs)} inputs, got "
                             f"{len(inputs)} tensors and {len(dims)} shapes")
        self._plan([tuple(int(d) for d in s) for s in dims])

    def predict(self, inputs: list[Tensor], outputs: list[Tensor] | None = None) -> list[Tensor]:
        """Run on the data of ``inputs``; returns the output tensors (also filled into
        ``outputs`` when given)."""
        self._built()
        if len(inputs) != len(self._inputs):
            raise ValueError(f"Model.predict: the model takes {len(self._inputs)} inputs, got "
                             f"{len(inputs)}")
        arrays = []
        for t, mine in zip(inputs, self._inputs):
            if t._shape != mine._shape or t._dtype != mine._dtype:
                raise ValueError(f"Model.predict: input {t.name!r} is {t.shape} "
                                 f"{t.dtype.value}, the model is planned for {mine.shape} "
                                 f"{mine.dtype.value} (call resize first)")
            if t._array is None:
                raise ValueError(f"Model.predict: input {t.name!r} holds no data "
                                 "(set_data_from_numpy)")
            arrays.append(t._array)
        for t, r in zip(self._outputs, self._run.run(arrays)):
            t._set(r)
        if outputs is not None:
            for t, r in zip(outputs, self._outputs):
                t._set(r._array)
        return list(self._outputs)
