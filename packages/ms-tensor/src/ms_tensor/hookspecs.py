"""Hook specifications of the ``microspore`` plugin system.

Every hook receives a registry view and returns ``None``: a plugin calls
``registry.add_*(...)`` and the view records which plugin added what. All hooks are
called once, when the registry first loads (on the first operator dispatch, or by
``ms_tensor.registry.load()``), for the framework's packages first and then for every
plugin found in the ``microspore`` entry-point group, in the order the specs are defined
here (``HOOK_ORDER``). Register only; do no other work in a hook: a heavy value can be
registered as a ``"module:attr"`` string, imported on first lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from ms_tensor.registry import RegistryView

__all__ = ["hookspec", "hookimpl", "PROJECT", "HOOK_ORDER"]

PROJECT = "microspore"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def ms_register_backends(registry: RegistryView) -> None:
    """Add devices with ``registry.add_backend(backend)``.

    ``backend`` is a ``ms_tensor.backend.Backend``; its ``name`` is MindSpore's
    ``device_target`` spelling (``"CPU"``, ``"GPU"``, ``"Ascend"``). Called first, so
    that kernels registered later can name the backend.
    """


@hookspec
def ms_register_ops(registry: RegistryView) -> None:
    """Add operators with ``registry.add_ops(op, ...)``, and functions that are not one
    operator with ``registry.add_function(name, fn)`` / ``registry.add_tensor_method(name, fn)``.

    An operator (ms-ops' ``OpDef``) declares everything about itself; ms-tensor reads
    it through two attributes: ``op.name`` and ``op.registrations()``, which yields
    ``(kind, name, backend, value, info)`` for each thing to register:

    - ``("primitive", op.name, None, op, {})``: the definition itself;
    - ``("kernel", op.name, backend, fn, {"dtypes": ..., "out": bool})``: one per backend
      (``fn`` takes the backend's arrays positionally and static arguments as keywords;
      with ``out`` it also fills an ``out=`` array it is given);
    - ``("bprop", op.name, None, fn, {})``: ``fn(*inputs, out, dout, **attrs)`` returns
      one gradient per input, written with operators so it traces and differentiates;
    - ``("op_sample", op.name, None, fn, {})``: ``fn(rng)`` yields ``(args, attrs)``,
      float64 arrays for tensor inputs; the gradient and kernel suites run every
      operator on its samples, so an operator without samples fails them;
    - ``("c_template", op.name, None, text, {})``: C source for a code generator;
    - ``("function", name, None, fn, {})`` and ``("tensor_method", name, None, fn, {})``:
      ``ops.name`` and ``Tensor.name``.

    An operator enters whole or not at all: one that collides with another plugin's is
    dropped with a warning naming both (the framework's own packages win).
    """


@hookspec
def ms_register_kernels(registry: RegistryView) -> None:
    """Add or override one backend's kernel of an existing operator with
    ``registry.add_kernel(op, backend, fn, dtypes=..., out=False, priority=...)``.

    For device plugins (a ``"GPU"`` kernel for ``Exp``) and communication backends
    (a collective's ``"MPI"`` kernel); ``backend`` must be registered. A new operator
    declares its kernels itself (``ms_register_ops``).
    """


@hookspec
def ms_register_passes(registry: RegistryView) -> None:
    """Add graph-optimization passes with ``registry.add_pass(name, fn, stage=...)``.

    ``fn(graph) -> graph``, or ``"module:function"`` so that nothing is imported until
    a graph is compiled; graph mode runs the passes of each stage in order of
    registration: the ``"optimize"`` ones, then the ``"schedule"`` ones (they order the
    final graph's nodes for running). A plugin's pass runs in every compiled graph.
    """


@hookspec
def ms_register_cli_commands(registry: RegistryView) -> None:
    """Add subcommands of the ``microspore`` command with ``registry.add_cli_command(name, fn,
    help=...)``.

    ``fn(argv)`` receives the arguments after the subcommand's name (a list of strings),
    parses them itself and returns an exit status (``None`` means 0). ``microspore NAME
    ...`` runs it; ``microspore --help`` lists every command with its ``help`` line and the
    plugin that added it. Called when the registry loads, like every hook: register only.
    """


@hookspec
def ms_register_explainers(registry: RegistryView) -> None:
    """Add saliency explainers with ``registry.add_explainer(name, cls)``.

    ``cls(network, ...)`` builds an explainer called as ``explainer(inputs, targets)``
    that returns ``(N, 1, H, W)`` saliency (MindSpore XAI's API); ms-insight's runner and
    ``ms_insight.explainer.create(name, ...)`` find it by ``name``. ``cls`` may be a
    ``"module:attr"`` string, imported on first lookup.
    """


@hookspec
def ms_register_c_templates(registry: RegistryView) -> None:
    """Add C code for ms-lite's code generator with ``registry.add_c_template(op, template,
    dtype=...)``.

    ``template`` is an ``ms_lite.codegen.CTemplate`` (kernel functions emitted once per
    project, a call filled per node) or a plain string, the loop body of an elementwise
    operator (``"out[i] = x[i] * 2;"``, inputs by the operator's argument names); ``dtype``
    is the tensors' numpy dtype name (``"float32"``, ``"int8"``). An ``OpDef``'s own
    ``c_template=`` is its float32 template. Called after the operators are registered;
    the generator names any operator of a model that has no template for its dtype.
    """


@hookspec
def ms_register_onnx(registry: RegistryView) -> None:
    """Add ONNX translators with ``registry.add_onnx_exporter(op, fn)`` and
    ``registry.add_onnx_importer(onnx_op_type, fn)``.

    An exporter turns one lite graph node of registry operator ``op`` into ONNX nodes
    (``fn(ctx, node)``, see ``ms_lite.onnx.export_ops``); an importer turns one ONNX node of
    ``onnx_op_type`` into registry operators (``fn(ctx, node)``, see
    ``ms_lite.onnx.context``). ``fn`` may be a ``"module:attr"`` string. A plugin's operator
    exports to ONNX once it registers an exporter; export names any operator without one.
    """


# A module's namespace keeps definition order, so this is the order of the specs above.
HOOK_ORDER = tuple(name for name in dict(globals()) if name.startswith("ms_register_"))
