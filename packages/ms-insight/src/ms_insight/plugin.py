"""The hookimpls microspore calls once, when its registry first loads: the summary
operators and the ``microspore insight ...`` command."""

from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    from ms_insight.summary.ops import OPS

    registry.add_ops(*OPS)


@hookimpl
def ms_register_cli_commands(registry: RegistryView) -> None:
    registry.add_cli_command("insight", "ms_insight.cli:main",
                             help="summaries, lineage, profiler and explanations: "
                                  "'microspore insight --help'")


EXPLAINERS = ("Gradient", "Deconvolution", "GuidedBackprop", "GradCAM", "Occlusion", "RISE",
              "RISEPlus")


@hookimpl
def ms_register_explainers(registry: RegistryView) -> None:
    for name in EXPLAINERS:
        registry.add_explainer(name, f"ms_insight.explainer:{name}")
