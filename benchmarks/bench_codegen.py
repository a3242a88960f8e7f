"""ms-lite codegen: RAM, flash and speed of models compiled to C.

Models: the seed's LeNet5 (1x1x32x32) and a keyword-spotting-sized CNN (49 frames x 10
MFCC; conv 10x4/2 SAME 32, conv 3x3 SAME 32, max pool, dense 64, dense 12), each in
float32 (the converter's fused graph) and int8 (FULL_QUANT, calibrated on 8 random
inputs). Weights are the initializers' (untrained): sizes and speed do not depend on them.

* arena: the generated code's one arena (planned offline: in-place reuse, best of several
  placement orders; int8 conv + max pool fused, the input quantized by rows from the
  caller's buffer, see ``ms_lite.codegen.fusion``), the same planner without in-place
  reuse, the same generator with ``fuse=False``, the lite runtime's
  first-fit-by-size planner (``ms_lite.runtime.executor.plan_arena``, 64-byte aligned), the
  sum of all tensors (no reuse), and the lower bound (the most bytes live at one step).
* flash (Cortex-M3, ``arm-none-eabi-gcc -Os``): the model's code (``net.o`` .text), its
  weights (``weight.o`` .rodata), and a minimal firmware image that runs it (vector table,
  ``net_*``, and what it pulls from newlib/libgcc: memcpy, soft-float), minus the weights.
* x86 latency per inference: the generated C (``-O3``, its benchmark main, one thread),
  the Python lite runtime, and onnxruntime on the ONNX export (float32; one thread),
  interleaved round by round (A B C A B C ...), medians.
* Cortex-M3 (MPS2-AN385 under ``qemu-system-arm -icount shift=0``): instructions per
  inference, from SysTick (25 MHz) in qemu's instruction-counting clock (1 ns per
  instruction, so 40 instructions per tick; checked with a counted loop).

Usage: ``python benchmarks/bench_codegen.py [--quick] [--case lenet5|kws]``
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import QUICK_NOTE, load_line, machine, median_iqr, num, run_rounds

CASES = ("lenet5", "kws")
CORTEX_FLAGS = ["-mcpu=cortex-m3", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                "-fdata-sections"]
INSTRUCTIONS_PER_TICK = 40  # qemu -icount shift=0: 1 ns per instruction; SysTick 25 MHz


class _Row:
    def __init__(self, case, label, run):
        self.case, self.label, self.run = case, label, run
        self.samples: list[float] = []


def _models():
    import ms_nn as nn

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
            self.fc1 = nn.Dense(400, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = x.reshape((x.shape[0], -1))
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    class KWS(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, (10, 4), stride=2, pad_mode="same", has_bias=True)
            self.conv2 = nn.Conv2d(32, 32, 3, pad_mode="same", has_bias=True)
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.fc1 = nn.Dense(32 * 12 * 2, 64)
            self.fc2 = nn.Dense(64, 12)
            self.relu = nn.ReLU()

        def construct(self, x):
            x = self.pool(self.relu(self.conv2(self.relu(self.conv1(x)))))
            x = x.reshape((x.shape[0], -1))
            return self.fc2(self.relu(self.fc1(x)))

    return {"lenet5": (LeNet5, (1, 1, 32, 32)), "kws": (KWS, (1, 1, 49, 10))}


def _graphs(case: str, work: Path):
    """(float32 graph, int8 graph, input, ONNX path) of one model."""
    from ms_lite.converter.config import QuantConfig
    from ms_lite.converter.pipeline import copy_graph, optimize
    from ms_lite.ir import from_cell
    from ms_lite.onnx.export import export_onnx
    from ms_lite.quant.full import full_quant

    cls, shape = _models()[case]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    captured = from_cell(cls(), x)
    onnx_path = work / f"{case}.onnx"
    export_onnx(captured, str(onnx_path))
    graph, report = optimize(captured)
    calib = work / f"calib_{case}"
    calib.mkdir()
    for i in range(8):
        np.save(calib / f"{i}.npy", rng.standard_normal(shape).astype(np.float32))
    cfg = QuantConfig(quant_type="FULL_QUANT", calibrate_path={"x": str(calib)},
                      calibrate_size=8)
    return graph, full_quant(copy_graph(graph), report, cfg), x, onnx_path


def _arena_row(project) -> dict:
    from ms_lite.codegen import Buffer, plan_memory
    from ms_lite.runtime.executor import plan_arena

    plan = project.plan
    ps = list(plan.placements.values())
    raw = [Buffer(p.name, p.size, p.start, p.end) for p in ps]
    a = plan.alignment
    steps = range(min(p.start for p in ps), max(p.end for p in ps) + 1)
    groups: dict[str, list] = {}
    for p in ps:
        groups.setdefault(p.alias_of or p.name, []).append(p)
    merged = [(max(m.size for m in g), min(m.start for m in g), max(m.end for m in g))
              for g in groups.values()]
    bound = max(sum(-(-s // a) * a for s, lo, hi in merged if lo <= t <= hi) for t in steps)
    _, first_fit = plan_arena([b.size for b in raw], [(b.start, b.end) for b in raw])
    return {"planned": plan.arena_size,
            "no in-place": plan_memory(raw, alignment=a).arena_size,
            "first-fit (lite runtime)": first_fit,
            "sum of tensors": sum(-(-b.size // a) * a for b in raw),
            "lower bound": bound}


def _sections(obj: Path) -> dict[str, int]:
    out = subprocess.run(["arm-none-eabi-size", "-A", str(obj)], capture_output=True,
                         text=True, check=True).stdout
    sizes: dict[str, int] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            key = parts[0].split(".")[1]
            sizes[key] = sizes.get(key, 0) + int(parts[1])
    return sizes


_MINIMAL = r"""
#include <stdint.h>
#include "net.h"
extern uint32_t __StackTop;
static uint8_t input[NET_INPUT0_BYTES];
void Reset_Handler(void)
{
    net_init();
    net_set_input(0, input, sizeof input);
    net_run();
    for (;;) {}
}
__attribute__((section(".isr_vector"), used))
static void (*const vectors[2])(void) = {(void (*)(void))&__StackTop, Reset_Handler};
"""


def _flash(project) -> dict:
    root = project.path
    build = root / "size"
    build.mkdir(exist_ok=True)
    inc = [f"-I{root / 'include'}", f"-I{root / 'src'}"]
    for src in ("net", "weight"):
        subprocess.run(["arm-none-eabi-gcc", *CORTEX_FLAGS, *inc, "-c", str(root / "src" /
                        f"{src}.c"), "-o", str(build / f"{src}.o")], check=True)
    (build / "minimal.c").write_text(_MINIMAL)
    subprocess.run(["arm-none-eabi-gcc", *CORTEX_FLAGS, *inc, "-nostartfiles",
                    "--specs=nano.specs", "-Wl,--gc-sections", "-T",
                    str(root / "cortex-m/mps2.ld"), str(build / "minimal.c"),
                    str(build / "net.o"), str(build / "weight.o"), "-lm", "-o",
                    str(build / "minimal.elf")], check=True)
    net, weight, image = (_sections(build / n) for n in ("net.o", "weight.o", "minimal.elf"))
    image_flash = image.get("text", 0) + image.get("ARM", 0) + image.get("data", 0)
    return {"code (net.o)": net.get("text", 0) + net.get("rodata", 0),
            "weights": weight.get("rodata", 0),
            "image": image_flash,
            "image without weights": image_flash - weight.get("rodata", 0)}


def _cortex_instructions(project) -> int:
    from ms_lite.codegen import targets

    targets.build(project.path, "Cortex-M", extra=("OPT=-O2",))
    out = targets.run_program(project.path, "Cortex-M", "benchmark", timeout=600).stdout
    m = re.search(r"min_cycles=(\d+)", out)
    if not m:
        raise RuntimeError(f"the Cortex-M benchmark printed no cycles:\n{out}")
    return int(m.group(1)) * INSTRUCTIONS_PER_TICK


def _c_latency(project, loops: int):
    def run():
        out = subprocess.run([str(project.path / "build/benchmark"), str(loops)],
                             capture_output=True, text=True, check=True, timeout=300).stdout
        return float(re.search(r"median_us=([\d.]+)", out).group(1)) * 1e-6
    return run


def _py_latency(graph, x, reps: int):
    from ms_lite.runtime.executor import Executor

    ex = Executor(graph)
    ex.run([x])

    def run():
        t = []
        for _ in range(reps):
            t0 = time.perf_counter()
            ex.run([x])
            t.append(time.perf_counter() - t0)
        return float(np.median(t))
    return run


def _ort_latency(onnx_path, x, reps: int):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    sess.run(None, {name: x})

    def run():
        t = []
        for _ in range(reps):
            t0 = time.perf_counter()
            sess.run(None, {name: x})
            t.append(time.perf_counter() - t0)
        return float(np.median(t))
    return run


def main(argv=None) -> int:
    from _common import arg_parser

    from ms_lite.codegen import generate, targets

    args = arg_parser(__doc__, CASES).parse_args(argv)
    cases = args.case or list(CASES)
    rounds, reps = (2, 20) if args.quick else (7, 100)
    load0 = __import__("os").getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="bench_codegen_"))
    memory, flash, speed_rows, cortex = [], [], [], []
    for case in cases:
        fp32, int8, x, onnx_path = _graphs(case, work)
        for prec, graph in (("float32", fp32), ("int8", int8)):
            label = f"{case} {prec}"
            proj = generate(graph, work / "cm", project_name=f"{case}_{prec}",
                            target="Cortex-M", golden_inputs=[x])
            plain = generate(graph, work / "cm_plain", project_name=f"{case}_{prec}",
                             target="Cortex-M", golden_inputs=[x], fuse=False)
            memory.append((label, {**_arena_row(proj), "unfused": plain.arena_size}))
            flash.append((label, _flash(proj)))
            cortex.append((label, _cortex_instructions(proj), _cortex_instructions(plain)))
            host = generate(graph, work / "x86", project_name=f"{case}_{prec}",
                            golden_inputs=[x])
            targets.build(host.path, "x86")
            speed_rows.append(_Row(label, "generated C (-O3)", _c_latency(host, reps * 5)))
            speed_rows.append(_Row(label, "Python lite runtime", _py_latency(graph, x, reps)))
            if prec == "float32":
                speed_rows.append(_Row(label, "onnxruntime (1 thread)",
                                       _ort_latency(onnx_path, x, reps * 5)))
    for label in dict.fromkeys(r.case for r in speed_rows):
        run_rounds(speed_rows, label, rounds, warmup=1, settle_s=0.05)

    print(f"Machine: {machine()}.")
    print(load_line(load0) + "." + (QUICK_NOTE if args.quick else ""))
    print("\nRAM: bytes of the one arena (Cortex-M alignment 8)\n")
    keys = list(memory[0][1])
    print("| model | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for label, row in memory:
        print(f"| {label} | " + " | ".join(f"{row[k]:,}" for k in keys) + " |")
    print("\nFlash on Cortex-M3 (arm-none-eabi-gcc -Os), bytes\n")
    keys = list(flash[0][1])
    print("| model | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for label, row in flash:
        print(f"| {label} | " + " | ".join(f"{row[k]:,}" for k in keys) + " |")
    print(f"\nx86 latency per inference, medians over {rounds} rounds (interleaved)\n")
    print("| model | implementation | median us | IQR us | vs generated C |")
    print("|---|---|---|---|---|")
    for label in dict.fromkeys(r.case for r in speed_rows):
        rows = [r for r in speed_rows if r.case == label]
        base = median_iqr(rows[0].samples)[0]
        for r in rows:
            med, lo, hi = median_iqr(r.samples)
            print(f"| {label} | {r.label} | {num(med * 1e6)} | {num(lo * 1e6)}-"
                  f"{num(hi * 1e6)} | {med / base:.2f}x |")
    print("\nCortex-M3 under qemu (MPS2-AN385, -O2): instructions per inference\n")
    print("| model | instructions | unfused (fuse=False) |")
    print("|---|---|---|")
    for label, n, n_plain in cortex:
        print(f"| {label} | {n:,} | {n_plain:,} |")
    lenet = dict(memory).get("lenet5 int8")
    lflash = dict(flash).get("lenet5 int8")
    if lenet and lflash:
        print(f"\n- goal check: LeNet5 int8 arena {lenet['planned']:,} B "
              f"({'under' if lenet['planned'] < 8192 else 'OVER'} 8 KB); code without "
              f"weights {lflash['image without weights']:,} B "
              f"({'under' if lflash['image without weights'] < 16384 else 'OVER'} 16 KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
