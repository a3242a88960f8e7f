"""ms-autodiff's hookimpls: ``StopGradient`` and the differentiation functions join the
operator namespace (``ops.stop_gradient``, ``ops.grad``, ...) as MindSpore's do."""

from ms_ops.infer import same_as
from ms_ops.opdef import ALL, Arg, OpDef
from ms_tensor.hookspecs import hookimpl

StopGradient = OpDef(
    "StopGradient", (Arg("input"),), infer=same_as(0), differentiable=False,
    nondiff_inputs=("input",),
    doc="The input, as a constant for differentiation: no gradient flows through it.")


def _identity(x):
    return x


@hookimpl
def ms_register_primitives(registry):
    registry.add_primitive(StopGradient)


@hookimpl
def ms_register_kernels(registry):
    registry.add_kernel(StopGradient, "CPU", _identity, dtypes=ALL)


@hookimpl
def ms_register_functions(registry):
    from ms_autodiff import GradOperation, grad, jvp, value_and_grad, vjp

    registry.add_function("StopGradient", StopGradient.primitive)
    registry.add_function("stop_gradient", StopGradient)
    for name, fn in (("grad", grad), ("value_and_grad", value_and_grad), ("vjp", vjp),
                     ("jvp", jvp), ("GradOperation", GradOperation)):
        registry.add_function(name, fn)


def _stop_gradient_samples(rng):
    yield (rng.standard_normal((2, 3)),), {}


@hookimpl
def ms_register_op_samples(registry):
    registry.add_op_sample(StopGradient, _stop_gradient_samples)
