"""MindSpore Lite Micro's ``[micro_param]`` section of the converter's ``--configFile``.

```
[micro_param]
enable_micro=true
target=x86            # x86, ARM64, ARM32, Cortex-M
codegen_mode=Inference
support_parallel=false  # true: threads on x86/ARM64/ARM32 Linux
save_path=/tmp/out
project_name=lenet
ram_budget=8KB        # microspore's addition: fail if the arena is larger
```
"""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass

from ms_lite.codegen.generate import TARGETS
from ms_lite.codegen.parallel import check_target
from ms_lite.codegen.planner import parse_size

__all__ = ["MicroConfig", "read_micro_config"]

_KEYS = ("enable_micro", "target", "codegen_mode", "support_parallel", "debug_mode",
         "save_path", "project_name", "ram_budget")


@dataclass
class MicroConfig:
    """What ``[micro_param]`` asks for; ``enable_micro`` False means no code generation."""
    enable_micro: bool = False
    target: str = "x86"
    codegen_mode: str = "Inference"
    support_parallel: bool = False
    save_path: str = "."
    project_name: str = "net"
    ram_budget: int | None = None
    source: str = ""


def _bool(path: str, key: str, text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "on", "1", "yes"):
        return True
    if t in ("false", "off", "0", "no"):
        return False
    raise ValueError(f"{path}: [micro_param] {key}={text!r} is not true or false")


def read_micro_config(path) -> MicroConfig:
    """``[micro_param]`` of ``path`` (disabled when the section is absent).

    Raises ValueError naming the file and key for unknown keys and values MindSpore
    Lite would reject, and for what this generator does not do (``codegen_mode=Train``;
    ``support_parallel=true`` for Cortex-M, which has no threads).
    """
    path = os.fspath(path)
    parser = configparser.ConfigParser(inline_comment_prefixes=("#",))
    try:
        with open(path, encoding="utf-8") as f:
            parser.read_file(f)
    except (OSError, configparser.Error, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot read the config file: {e}") from None
    cfg = MicroConfig(source=path)
    if not parser.has_section("micro_param"):
        return cfg
    sec = parser["micro_param"]
    unknown = sorted(set(sec) - set(_KEYS))
    if unknown:
        raise ValueError(f"{path}: [micro_param] has unknown keys {unknown}; known: "
                         f"{', '.join(_KEYS)}")
    cfg.enable_micro = _bool(path, "enable_micro", sec.get("enable_micro", "false"))
    target = sec.get("target", "x86").strip()
    by_lower = {t.lower(): t for t in TARGETS}
    if target.lower() not in by_lower:
        raise ValueError(f"{path}: [micro_param] target={target!r}; expected one of "
                         f"{', '.join(TARGETS)}")
    cfg.target = by_lower[target.lower()]
    cfg.codegen_mode = sec.get("codegen_mode", "Inference").strip()
    if cfg.codegen_mode.lower() != "inference":
        raise ValueError(f"{path}: [micro_param] codegen_mode={cfg.codegen_mode!r}: only "
                         "Inference is generated (training code is not)")
    cfg.support_parallel = _bool(path, "support_parallel", sec.get("support_parallel", "false"))
    if cfg.support_parallel:
        try:
            check_target(cfg.target)
        except ValueError as e:
            raise ValueError(f"{path}: [micro_param] {e}") from None
    cfg.save_path = sec.get("save_path", ".").strip()
    cfg.project_name = sec.get("project_name", "net").strip()
    if not cfg.project_name.isidentifier():
        raise ValueError(f"{path}: [micro_param] project_name={cfg.project_name!r} must be a "
                         "C identifier")
    if "ram_budget" in sec:
        cfg.ram_budget = parse_size(sec["ram_budget"])
    return cfg
