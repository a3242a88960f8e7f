"""Install the system tools some tests run (cross compilers, emulators, a browser).

The README's test command runs this before pytest, so CI's clean Debian machine tests the
code generator on ARM and Cortex-M and the dashboard in a real browser instead of
skipping them. It installs with apt-get only where it can (root, apt-get on PATH) and only
what is missing; elsewhere it prints the command to run and the tests that will skip.
Nothing here is needed to use microspore.

    python tools/system_deps.py           install what is missing (or say what to install)
    python tools/system_deps.py --check   only report
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

# Debian package -> (a program it provides, the tests that need it).
PACKAGES = {
    "gcc-arm-none-eabi": ("arm-none-eabi-gcc", "ms-lite codegen on Cortex-M"),
    "libnewlib-arm-none-eabi": ("arm-none-eabi-gcc", "ms-lite codegen on Cortex-M (libm)"),
    "qemu-system-arm": ("qemu-system-arm", "ms-lite codegen on Cortex-M (MPS2 board)"),
    "qemu-user": ("qemu-aarch64", "ms-lite codegen on ARM64/ARM32 Linux"),
    "gcc-aarch64-linux-gnu": ("aarch64-linux-gnu-gcc", "ms-lite codegen on ARM64 Linux"),
    "gcc-arm-linux-gnueabihf": ("arm-linux-gnueabihf-gcc", "ms-lite codegen on ARM32 Linux"),
    "chromium": ("chromium", "ms-insight dashboard in a browser"),
    # C libraries of the cross compilers (a Recommends that --no-install-recommends skips)
    "libc6-dev-arm64-cross": ("/usr/aarch64-linux-gnu/include/stdio.h",
                              "ms-lite codegen on ARM64 Linux (libc)"),
    "libc6-dev-armhf-cross": ("/usr/arm-linux-gnueabihf/include/stdio.h",
                              "ms-lite codegen on ARM32 Linux (libc)"),
}


def missing() -> list[str]:
    """Debian packages whose program is not on PATH (or whose file, for an absolute path,
    does not exist)."""
    return [pkg for pkg, (program, _) in PACKAGES.items() if shutil.which(program) is None
            and not (program.startswith("/") and os.path.exists(program))]


def main(argv: list[str]) -> int:
    todo = missing()
    if not todo:
        print("system_deps: every test tool is installed")
        return 0
    command = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *todo]
    can_install = os.geteuid() == 0 and shutil.which("apt-get") is not None
    if "--check" in argv or not can_install:
        print("system_deps: missing " + ", ".join(todo) + "; these tests will skip:")
        for pkg in todo:
            print(f"  {PACKAGES[pkg][1]} ({pkg})")
        print("install with: sudo apt-get update && sudo " + " ".join(command))
        return 0
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print("system_deps: installing " + " ".join(todo), flush=True)
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    still = missing()
    if still:
        print("system_deps: still missing after apt-get: " + ", ".join(still), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
