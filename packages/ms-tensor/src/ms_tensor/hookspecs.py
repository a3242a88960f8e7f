"""Hook specifications of the ``microspore`` plugin system.

Every hook receives a registry view and returns ``None``: a plugin calls
``registry.add_*(...)`` and the view records which plugin added what. All hooks are
called once, when the registry first loads (on the first operator dispatch, or by
``ms_tensor.registry.load()``), for ms-ops and for every plugin found in the
``microspore`` entry-point group, in the order the specs are listed here. Register
only; do no other work in a hook.
"""

from __future__ import annotations

import pluggy

__all__ = ["hookspec", "hookimpl", "PROJECT", "HOOK_ORDER"]

PROJECT = "microspore"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def ms_register_backends(registry) -> None:
    """Add devices with ``registry.add_backend(backend)``.

    ``backend`` is a ``ms_tensor.backend.Backend``; its ``name`` is MindSpore's
    ``device_target`` spelling (``"CPU"``, ``"GPU"``, ``"Ascend"``). Called first, so
    that kernels registered later can name the backend.
    """


@hookspec
def ms_register_primitives(registry) -> None:
    """Add operator definitions with ``registry.add_primitive(opdef)``.

    ``opdef`` has a unique ``name`` (MindSpore's class name, e.g. ``"MatMul"``),
    its signature and its shape/dtype inference.
    """


@hookspec
def ms_register_kernels(registry) -> None:
    """Add kernels with ``registry.add_kernel(op, backend, fn, dtypes=...)``.

    ``op`` is a registered primitive (or its name), ``backend`` a registered backend
    name. ``fn`` takes the backend's arrays positionally and static arguments as
    keywords, and returns an array or a tuple of arrays. With ``out=True`` it also accepts
    ``out=``: an array of the result's shape and dtype to write the result into.
    """


@hookspec
def ms_register_bprops(registry) -> None:
    """Add gradient rules with ``registry.add_bprop(op, fn)``.

    ``fn(*inputs, out, dout, **attrs)`` returns one gradient per input (``None`` for
    inputs that take none). It must be written with operators, so that it runs
    eagerly, traces into graphs and can itself be differentiated.
    """


@hookspec
def ms_register_functions(registry) -> None:
    """Add functional-API names with ``registry.add_function(name, fn)``.

    These are what ``ms_ops.functional`` (and ``microspore.ops``) expose, e.g.
    ``"matmul"``, and the Primitive classes, e.g. ``"MatMul"``.
    """


@hookspec
def ms_register_tensor_methods(registry) -> None:
    """Add ``Tensor`` methods with ``registry.add_tensor_method(name, fn)``.

    ``fn`` receives the tensor as its first argument; Python operators are added
    under their dunder names (``"__add__"``).
    """


@hookspec
def ms_register_passes(registry) -> None:
    """Add graph-optimization passes with ``registry.add_pass(name, fn, stage=...)``.

    ``fn(graph) -> graph``; graph mode runs the passes of each stage in order of
    registration. A plugin's pass runs in every compiled graph.
    """


@hookspec
def ms_register_op_samples(registry) -> None:
    """Add sample inputs for operators with ``registry.add_op_sample(op, fn)``.

    ``fn(rng)`` yields ``(args, attrs)`` pairs: float64 numpy arrays for tensor inputs,
    Python values for static ones, and a dict of attributes. The gradient and kernel
    test suites enumerate the registry and run every operator on its samples, so an
    operator without samples fails them instead of going unchecked.
    """


@hookspec
def ms_register_cli_commands(registry) -> None:
    """Add subcommands of the ``microspore`` command with ``registry.add_cli_command(name, fn,
    help=...)``.

    ``fn(argv)`` receives the arguments after the subcommand's name (a list of strings),
    parses them itself and returns an exit status (``None`` means 0). ``microspore NAME
    ...`` runs it; ``microspore --help`` lists every command with its ``help`` line and the
    plugin that added it. Called when the registry loads, like every hook: register only.
    """


HOOK_ORDER = (
    "ms_register_backends",
    "ms_register_primitives",
    "ms_register_kernels",
    "ms_register_bprops",
    "ms_register_functions",
    "ms_register_tensor_methods",
    "ms_register_passes",
    "ms_register_op_samples",
    "ms_register_cli_commands",
)
