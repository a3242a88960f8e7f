"""``[micro_param]`` of the converter's config file, as MindSpore Lite Micro spells it."""

from __future__ import annotations

import pytest

from ms_lite.codegen import read_micro_config


def _cfg(tmp_path, body: str):
    p = tmp_path / "micro.cfg"
    p.write_text(body)
    return p


def test_micro_param_is_read(tmp_path):
    cfg = read_micro_config(_cfg(tmp_path, "[micro_param]\nenable_micro=true\n"
                                           "target=cortex-m\ncodegen_mode=Inference\n"
                                           "support_parallel=false\nsave_path=out\n"
                                           "project_name=lenet\nram_budget=8KB\n"))
    assert (cfg.enable_micro, cfg.target, cfg.save_path, cfg.project_name, cfg.ram_budget) \
        == (True, "Cortex-M", "out", "lenet", 8192)


def test_support_parallel_is_read_for_linux_targets(tmp_path):
    cfg = read_micro_config(_cfg(tmp_path, "[micro_param]\nenable_micro=true\ntarget=ARM64\n"
                                           "support_parallel=true\n"))
    assert cfg.support_parallel and cfg.target == "ARM64"


def test_a_config_without_micro_param_disables_codegen(tmp_path):
    cfg = read_micro_config(_cfg(tmp_path, "[common_quant_param]\nquant_type=FULL_QUANT\n"))
    assert not cfg.enable_micro


@pytest.mark.parametrize("line, message", [
    ("target=riscv", r"target='riscv'; expected one of x86, ARM64, ARM32, Cortex-M"),
    ("codegen_mode=Train", "only Inference is generated"),
    ("target=Cortex-M\nsupport_parallel=true",
     "support_parallel=true is not available for target Cortex-M: a Cortex-M runs the "
     "generated code bare-metal on one core, with no OS and no threads"),
    ("enable_micro=maybe", "enable_micro='maybe' is not true or false"),
    ("project_name=my-net", "must be a C identifier"),
    ("ram_budget=lots", "a RAM budget is a number of bytes"),
    ("colour=blue", r"unknown keys \['colour'\]"),
])
def test_bad_micro_param_is_named(tmp_path, line, message):
    first = "" if line.startswith("enable_micro") else "enable_micro=true\n"
    path = _cfg(tmp_path, f"[micro_param]\n{first}{line}\n")
    with pytest.raises(ValueError, match=message):
        read_micro_config(path)


def test_an_unreadable_file_is_named(tmp_path):
    with pytest.raises(ValueError, match="missing.cfg: cannot read the config file"):
        read_micro_config(tmp_path / "missing.cfg")
