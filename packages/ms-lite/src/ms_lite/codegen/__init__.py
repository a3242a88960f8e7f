"""ms-lite's code generator (MindSpore Lite Micro's role): a lite Graph compiled to a C99
project with no interpreter, no malloc and no OS, its memory planned offline.

``generate(graph, save_path, target=...)`` writes the project; ``targets.build`` and
``targets.run_program`` build it and run it on x86, ARM64/ARM32 (qemu-user) or an MPS2
Cortex-M board (qemu-system-arm). Operators bring their C through the registry
(``registry.add_c_template``; ``CTemplate``).
"""

from ms_lite.codegen.config import MicroConfig, read_micro_config
from ms_lite.codegen.generate import TARGETS, Project, generate
from ms_lite.codegen.planner import (
                                     Buffer,
                                     MemoryBudgetError,
                                     MemoryPlan,
                                     Placement,
                                     parse_size,
                                     plan_memory,
)
from ms_lite.codegen.templates import CTemplate, MissingTemplateError

__all__ = ["generate", "Project", "TARGETS", "CTemplate", "MissingTemplateError",
           "MemoryBudgetError", "MemoryPlan", "Placement", "Buffer", "plan_memory",
           "parse_size", "MicroConfig", "read_micro_config"]
