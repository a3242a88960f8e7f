"""``microspore ascend doctor``: is this environment ready for Ascend, and if not, what
to do. It reads the environment and the file system only; it changes nothing.

Checks: the CANN toolkit (``ASCEND_HOME_PATH`` / ``ASCEND_TOOLKIT_HOME``, the default
``/usr/local/Ascend/ascend-toolkit/latest``, its libraries on ``LD_LIBRARY_PATH``,
``ASCEND_OPP_PATH``), the driver and devices (``/usr/local/Ascend/driver``,
``/dev/davinci<N>``, ``npu-smi``), and the job's ranks (``DEVICE_ID``, ``RANK_ID``,
``RANK_SIZE``, ``RANK_TABLE_FILE``, checked against each other and the rank table).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass

from ms_device_ascend.rank_table import DEVICES_PER_SERVER, load_rank_table

__all__ = ["Check", "doctor", "format_checks"]

OK, WARN, ERROR, INFO = "ok", "warning", "error", "info"
TOOLKIT = "usr/local/Ascend/ascend-toolkit/latest"
SET_ENV = "source /usr/local/Ascend/ascend-toolkit/set_env.sh"


@dataclass
class Check:
    level: str
    name: str
    message: str
    advice: str = ""


def doctor(env=None, root: str = "/") -> list[Check]:
    """The checks for ``env`` (default ``os.environ``), paths under ``root``."""
    env = dict(os.environ if env is None else env)
    checks = _cann(env, root)
    devices = _devices(env, root, checks)
    _ranks(env, devices, checks)
    checks.append(Check(INFO, "microspore", "microspore runs Ascend's numerics as an "
                        "EMULATION on the CPU (set_context(device_target='Ascend')); it has "
                        "no ACL runtime backend, so real Ascend training uses MindSpore"))
    return checks


def _path(root, p):
    return os.path.join(root, p.lstrip("/"))


def _cann(env, root) -> list[Check]:
    out = []
    home = env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME")
    where = "ASCEND_HOME_PATH" if env.get("ASCEND_HOME_PATH") else "ASCEND_TOOLKIT_HOME"
    if home is None and os.path.isdir(_path(root, TOOLKIT)):
        home, where = "/" + TOOLKIT, "the default path"
    if home is None:
        out.append(Check(ERROR, "CANN", "no CANN toolkit: ASCEND_HOME_PATH is unset and "
                         f"/{TOOLKIT} does not exist", "install the CANN toolkit matching "
                         f"your MindSpore version, then `{SET_ENV}`"))
        return out
    if not os.path.isdir(_path(root, home)):
        out.append(Check(ERROR, "CANN", f"{where} is {home}, which does not exist",
                         f"fix the path, or `{SET_ENV}`"))
        return out
    version = _version(_path(root, home))
    out.append(Check(OK, "CANN", f"toolkit at {home} ({where})"
                     + (f", version {version}" if version else "")))
    lib = os.path.join(home, "lib64")
    if lib not in env.get("LD_LIBRARY_PATH", "").split(":"):
        out.append(Check(ERROR, "LD_LIBRARY_PATH", f"{lib} is not on LD_LIBRARY_PATH: the "
                         "ACL and HCCL libraries will not load", SET_ENV))
    opp = env.get("ASCEND_OPP_PATH")
    if not opp:
        out.append(Check(ERROR, "ASCEND_OPP_PATH", "unset: the operator packages (AI Core "
                         "kernels) will not be found", SET_ENV))
    elif not os.path.isdir(_path(root, opp)):
        out.append(Check(ERROR, "ASCEND_OPP_PATH", f"{opp} does not exist", SET_ENV))
    return out


def _version(home) -> str | None:
    for name in ("version.cfg", "compiler/version.info", "runtime/version.info"):
        p = os.path.join(home, name)
        if os.path.isfile(p):
            text = open(p, encoding="utf-8", errors="replace").read()
            m = re.search(r"[Vv]ersion\s*[=:]\s*\[?([\w.\-]+)", text)
            if m:
                return m.group(1)
    return None


def _devices(env, root, checks) -> int:
    driver = _path(root, "usr/local/Ascend/driver")
    dev = _path(root, "dev")
    found = sorted(int(m.group(1)) for n in (os.listdir(dev) if os.path.isdir(dev) else [])
                   for m in [re.fullmatch(r"davinci(\d+)", n)] if m)
    if not os.path.isdir(driver):
        checks.append(Check(ERROR, "driver", "no Ascend driver at /usr/local/Ascend/driver",
                            "install the NPU driver and firmware (npu-smi info should list "
                            "the devices)"))
    if found:
        checks.append(Check(OK, "devices", f"{len(found)} NPU device(s): /dev/davinci"
                            + ",".join(map(str, found))))
    else:
        checks.append(Check(ERROR, "devices", "no /dev/davinci<N> device: this machine "
                            "has no visible Ascend NPU", "run on an Ascend host, or in a "
                            "container started with --device=/dev/davinci<N> "
                            "--device=/dev/davinci_manager --device=/dev/hisi_hdc"))
    if shutil.which("npu-smi", path=env.get("PATH")) is None:
        checks.append(Check(WARN, "npu-smi", "npu-smi is not on PATH", "add "
                            "/usr/local/sbin (or the driver's tools) to PATH"))
    return len(found) or DEVICES_PER_SERVER


def _int(env, name, checks):
    v = env.get(name)
    if v is None:
        return None
    try:
        return int(v)
    except ValueError:
        checks.append(Check(ERROR, name, f"{name}={v!r} is not an integer"))
        return False


def _ranks(env, devices, checks) -> None:
    device_id = _int(env, "DEVICE_ID", checks)
    rank_id = _int(env, "RANK_ID", checks)
    rank_size = _int(env, "RANK_SIZE", checks)
    if device_id is None:
        checks.append(Check(INFO, "DEVICE_ID", "unset: MindSpore uses device 0 (or "
                            "set_context(device_id=...))"))
    elif device_id is not False and not 0 <= device_id < devices:
        checks.append(Check(ERROR, "DEVICE_ID", f"DEVICE_ID={device_id} is not one of this "
                            f"host's devices 0-{devices - 1}"))
    if rank_size is None or rank_size is False:
        if rank_id is not None and rank_id is not False:
            checks.append(Check(ERROR, "RANK_SIZE", "RANK_ID is set but RANK_SIZE is not",
                                "export RANK_SIZE (the number of processes of the job)"))
        return
    if rank_size < 1:
        checks.append(Check(ERROR, "RANK_SIZE", f"RANK_SIZE={rank_size} must be >= 1"))
        return
    if rank_id is None:
        checks.append(Check(ERROR, "RANK_ID", f"RANK_SIZE={rank_size} but RANK_ID is unset",
                            "each process exports its own RANK_ID (0..RANK_SIZE-1)"))
    elif rank_id is not False and not 0 <= rank_id < rank_size:
        checks.append(Check(ERROR, "RANK_ID", f"RANK_ID={rank_id} is not in 0..{rank_size - 1}"))
    if rank_size > 1:
        _rank_table(env, rank_size, rank_id, device_id, checks)


def _rank_table(env, rank_size, rank_id, device_id, checks) -> None:
    path = env.get("RANK_TABLE_FILE")
    if not path:
        checks.append(Check(ERROR, "RANK_TABLE_FILE", f"RANK_SIZE={rank_size} but no "
                            "RANK_TABLE_FILE", "write one with `microspore ascend "
                            "rank-table` (hccl_tools' format), or launch with msrun "
                            "(dynamic networking) instead"))
        return
    if not os.path.isfile(path):
        checks.append(Check(ERROR, "RANK_TABLE_FILE", f"{path} does not exist"))
        return
    try:
        ranks = load_rank_table(path)
    except ValueError as e:
        checks.append(Check(ERROR, "RANK_TABLE_FILE", str(e)))
        return
    if len(ranks) != rank_size:
        checks.append(Check(ERROR, "RANK_TABLE_FILE", f"{path} lists {len(ranks)} ranks but "
                            f"RANK_SIZE={rank_size}"))
    elif isinstance(rank_id, int) and isinstance(device_id, int) and \
            0 <= rank_id < len(ranks) and ranks[rank_id].device_id != device_id:
        checks.append(Check(ERROR, "DEVICE_ID", f"the rank table gives rank {rank_id} device "
                            f"{ranks[rank_id].device_id}, but DEVICE_ID={device_id}"))
    else:
        checks.append(Check(OK, "RANK_TABLE_FILE", f"{path}: {len(ranks)} ranks on "
                            f"{len({r.server_id for r in ranks})} server(s)"))


def format_checks(checks) -> str:
    marks = {OK: "ok  ", WARN: "warn", ERROR: "FAIL", INFO: "info"}
    lines = []
    for c in checks:
        lines.append(f"[{marks[c.level]}] {c.name}: {c.message}")
        if c.advice:
            lines.append(f"       -> {c.advice}")
    n = sum(c.level == ERROR for c in checks)
    lines.append(f"{n} problem(s)" if n else "no problems found")
    return "\n".join(lines)
