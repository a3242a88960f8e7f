"""ms-autodiff's hookimpls: ``StopGradient`` and the differentiation functions join the
operator namespace (``ops.stop_gradient``, ``ops.grad``, ...) as MindSpore's do."""

from ms_ops.infer import same_as
from ms_ops.opdef import ALL, Arg, OpDef
from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView

StopGradient = OpDef(
    "StopGradient", (Arg("input"),), infer=same_as(0), differentiable=False,
    nondiff_inputs=("input",), functional="stop_gradient",
    doc="The input, as a constant for differentiation: no gradient flows through it.")


@StopGradient.kernel("CPU", dtypes=ALL)
def _identity(x):
    return x


@StopGradient.samples
def _stop_gradient_samples(rng):
    yield (rng.standard_normal((2, 3)),), {}


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    from ms_autodiff import GradOperation, grad, jacfwd, jacrev, jvp, value_and_grad, vjp, vmap
    from ms_autodiff.grad_hooks import DumpGradient, HookBackward, InsertGradientOf

    registry.add_ops(StopGradient)
    for name, fn in (("grad", grad), ("value_and_grad", value_and_grad), ("vjp", vjp),
                     ("jvp", jvp), ("GradOperation", GradOperation), ("vmap", vmap),
                     ("jacrev", jacrev), ("jacfwd", jacfwd),
                     ("InsertGradientOf", InsertGradientOf), ("HookBackward", HookBackward),
                     ("DumpGradient", DumpGradient)):
        registry.add_function(name, fn)
