"""``microspore lite convert ... --configFile=micro.cfg``: after the conversion, a config
with ``[micro_param] enable_micro=true`` also writes the C project (MindSpore Lite
Micro's converter_lite behaviour); ``--ram-budget 8KB`` fails when the arena is larger."""

from __future__ import annotations

import sys

__all__ = ["micro_codegen"]


def micro_codegen(graph, config_file: str, ram_budget=None, *, out=None, err=None) -> int:
    """Generate the project ``config_file`` asks for; returns an exit status (0 also when
    code generation is not enabled), printing what it wrote or the error."""
    from ms_lite.codegen.config import read_micro_config
    from ms_lite.codegen.generate import generate
    from ms_lite.codegen.planner import parse_size

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if not config_file:
            raise ValueError("--ram-budget needs --configFile with [micro_param] "
                             "enable_micro=true")
        cfg = read_micro_config(config_file)
        if not cfg.enable_micro:
            if ram_budget is not None:
                raise ValueError("--ram-budget applies to code generation; the config file "
                                 "has no [micro_param] enable_micro=true")
            return 0
        budget = parse_size(ram_budget) if ram_budget is not None else cfg.ram_budget
        project = generate(graph, cfg.save_path, project_name=cfg.project_name,
                           target=cfg.target, ram_budget=budget,
                           support_parallel=cfg.support_parallel)
    except (OSError, ValueError, LookupError) as e:
        print(f"microspore lite convert: code generation: {e}", file=err)
        print("CONVERT RESULT FAILED", file=err)
        return 1
    print(f"wrote C project {project.path} for {project.target}: arena "
          f"{project.arena_size} bytes, weights {project.weights_bytes} bytes "
          f"(memory plan: {project.path / 'memory_plan.txt'})", file=out)
    return 0
