"""Building small IR graphs by hand for the pass tests, and running them."""

import numpy as np
from ms_graph.executor import Executable
from ms_graph.ir import Graph, Node, Value
from ms_graph.trace import spec_of

from ms_ops.dispatch import execute
from ms_tensor.tensor import wrap


class Builder:
    """``b = Builder(); x = b.input((2, 3)); y = b(ops.Exp, x); g = b.output(y)``.

    Output specs come from running the operator eagerly on arrays of the argument specs
    (ones, so Log and Div stay finite), i.e. exactly what tracing would record.
    """

    def __init__(self):
        self.graph = Graph(name="test")

    def input(self, shape, dtype=np.float32) -> Value:
        v = Value(spec_of(np.ones(shape, dtype)))
        self.graph.inputs.append(v)
        return v

    def param(self, parameter) -> Value:
        v = Value(spec_of(parameter._data), name=parameter.name)
        self.graph.params.append((v, parameter))
        return v

    def const(self, array) -> Value:
        array = np.asarray(array)
        return Value(spec_of(array), const=array)

    def __call__(self, op, *args, **attrs):
        def sample(a):
            if not isinstance(a, Value):
                return a
            if a.is_const:
                return wrap(np.array(a.const))
            return wrap(np.ones(a.spec.shape, a.spec.dtype.np))

        attrs = op.complete_attrs(attrs)
        out = execute(op, [sample(a) for a in args], attrs)
        node = Node(op, args, attrs)
        for o in out if isinstance(out, tuple) else (out,):
            node.add_output(spec_of(o._data))
        self.graph.nodes.append(node)
        return node.outputs[0] if len(node.outputs) == 1 else tuple(node.outputs)

    def output(self, *values) -> Graph:
        self.graph.outputs = list(values)
        return self.graph


def run(graph: Graph, *arrays) -> tuple:
    return Executable(graph).run_arrays([np.asarray(a) for a in arrays])


def names(graph: Graph) -> list[str]:
    return [n.name for n in graph.nodes]
