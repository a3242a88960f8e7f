"""ms-lite inference: LeNet5 and an MLP at batch 1 and 32 — the lite runtime (fp32 and
int8) against onnxruntime, microspore eager and graph mode, and MindSpore 2.10 (PyNative,
in its own interpreter); model sizes, the runtime's import time and installed size.

Run: ``python benchmarks/bench_lite.py [--quick] [--case lenet-b1 ...]``. The issue's goal:
batch-1 latency of the lite runtime at or below onnxruntime's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import (
    START_ENV,
    THREADS,
    Row,
    arg_parser,
    check_agreement,
    digest,
    load_line,
    machine,
    median_iqr,
    num,
    print_notes,
    rounds_line,
    run_rounds,
    timed,
)
from _workers import mindspore_cpu, reply_channel, serve, worker_rows

ROOT = Path(__file__).resolve().parents[1]
CASES = ("lenet-b1", "lenet-b32", "mlp-b1", "mlp-b32")
PLAN = {"lenet-b1": (10, 20), "lenet-b32": (8, 3), "mlp-b1": (10, 50),
        "mlp-b32": (8, 10)}  # rounds, calls per sample
MLP_LAYERS = ((784, 512), (512, 256), (256, 10))


def _shape(case):
    batch = int(case.split("-b")[1])
    return (batch, 1, 32, 32) if case.startswith("lenet") else (batch, 784)


def make_data(path: str) -> None:
    """Weights (LeNet5 as examples/lenet.py builds it, a 784-512-256-10 MLP) and inputs."""
    sys.path.insert(0, str(ROOT / "examples"))
    import lenet

    import microspore as ms

    ms.set_seed(0)
    rng = np.random.default_rng(0)
    arrays = {f"lenet/{p.name}": p.asnumpy() for p in lenet.LeNet5(10).get_parameters()}
    for i, (a, b) in enumerate(MLP_LAYERS):
        arrays[f"mlp/fc{i}.weight"] = (rng.standard_normal((b, a)) / np.sqrt(a)).astype(
            np.float32)
        arrays[f"mlp/fc{i}.bias"] = (rng.standard_normal(b) * 0.1).astype(np.float32)
    for case in CASES:
        arrays[f"x/{case}"] = rng.standard_normal(_shape(case)).astype(np.float32)
    np.savez(path, **arrays)


def _mlp_cell(nn, ms, data):
    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc0, self.fc1, self.fc2 = (nn.Dense(a, b) for a, b in MLP_LAYERS)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(self.relu(self.fc0(x)))))

    net = MLP()
    ms.load_param_into_net(net, {k[4:]: ms.Parameter(ms.Tensor(v), name=k[4:])
                                 for k, v in data.items() if k.startswith("mlp/")})
    return net


def networks(ms, nn, data, lenet_cls):
    lenet = lenet_cls(10)
    ms.load_param_into_net(lenet, {k[6:]: ms.Parameter(ms.Tensor(v), name=k[6:])
                                   for k, v in data.items() if k.startswith("lenet/")})
    nets = {"lenet": lenet, "mlp": _mlp_cell(nn, ms, data)}
    for n in nets.values():
        n.set_train(False)
    return nets


# -- MindSpore's side ---------------------------------------------------------------------
def worker_main(data_path: str) -> int:
    reply = reply_channel()
    ms = mindspore_cpu(THREADS)
    from mindspore import nn, ops

    data = dict(np.load(data_path))

    class LeNet5(nn.Cell):  # examples/lenet.py's network, in MindSpore
        def __init__(self, num_class=10):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
            self.fc1, self.fc2 = nn.Dense(400, 120), nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, num_class)
            self.relu, self.max_pool2d = nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2)
            self.reshape = ops.Reshape()

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.reshape(x, (x.shape[0], -1))
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    nets = networks(ms, nn, data, LeNet5)
    runs, checks = {}, {}
    for case in CASES:
        net, x = nets[case.split("-")[0]], ms.Tensor(data[f"x/{case}"])
        reps = PLAN[case][1]
        runs[case] = lambda net=net, x=x, reps=reps: timed(lambda: net(x).asnumpy(), reps)
        checks[case] = lambda net=net, x=x: digest(net(x).asnumpy())
    return serve(reply, runs, checks, THREADS)


# -- the driver's side --------------------------------------------------------------------
def _lite_model(path, x, threads=THREADS):
    import microspore_lite as mslite

    ctx = mslite.Context()
    ctx.target = ["cpu"]
    ctx.cpu.thread_num = threads
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR_LITE, ctx)
    inputs = model.get_inputs()

    def predict():
        inputs[0].set_data_from_numpy(x)
        return model.predict(inputs)[0].get_data_to_numpy()
    return predict


def _convert(tmp, name, mindir, cfg=None):
    import microspore_lite as mslite

    return mslite.Converter().convert(mslite.FmkType.MINDIR, mindir, str(tmp / name),
                                      config_file=str(cfg) if cfg else "").path


def driver_rows(data_path, tmp: Path, cases, notes, sizes):
    sys.path.insert(0, str(ROOT / "examples"))
    import lenet as lenet_mod
    import onnxruntime as ort
    from ms_graph import jit

    import microspore as ms
    import microspore.nn as nn

    data = dict(np.load(data_path))
    nets = networks(ms, nn, data, lenet_mod.LeNet5)
    rows, int8_rows = [], []
    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = THREADS, 1
    for case in cases:
        net_name = case.split("-")[0]
        net, x = nets[net_name], data[f"x/{case}"]
        reps = PLAN[case][1]
        base = tmp / case
        mindir = ms.export(net, ms.Tensor(x), file_name=str(base), file_format="MINDIR")
        onnx_path = ms.export(net, ms.Tensor(x), file_name=str(base), file_format="ONNX")
        calib = tmp / f"{case}-calib.npy"
        np.save(calib, np.random.default_rng(1).standard_normal((64,) + x.shape[1:]).astype(
            np.float32) if net_name == "mlp" else data[f"x/{case}"].repeat(
            max(1, 64 // x.shape[0]), axis=0))
        cfg = tmp / f"{case}.cfg"
        cfg.write_text("[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\n"
                       f"[data_preprocess_param]\ncalibrate_path=x:{calib}\n")
        fp32 = _lite_model(_convert(tmp, f"{case}-fp32", mindir), x)
        int8_path = _convert(tmp, f"{case}-int8", mindir, cfg)
        int8 = _lite_model(int8_path, x)
        sess = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
        feed = {sess.get_inputs()[0].name: x}
        jitted = jit(lambda t, net=net: net(t), capture_mode="trace")
        tx = ms.Tensor(x)
        if case.endswith("b1"):
            sizes[net_name] = {k: os.path.getsize(p) for k, p in (
                ("lite fp32 .ms", tmp / f"{case}-fp32.ms"), ("lite int8 .ms", int8_path),
                ("ONNX", onnx_path), ("MINDIR", mindir))}
        diff = np.abs(int8() - fp32()).max()
        notes.append(f"lite int8 ({case}): largest difference from fp32 {diff:.3g} "
                     "(int8 is not held to the fp32 digest)")
        rows += [
            Row(case, "lite fp32", lambda f=fp32, r=reps: timed(f, r), lambda f=fp32: digest(f())),
            Row(case, "onnxruntime", lambda r=reps, s=sess, d=feed: timed(
                lambda: s.run(None, d), r), lambda s=sess, d=feed: digest(s.run(None, d)[0])),
            Row(case, "microspore eager", lambda n=net, t=tx, r=reps: timed(
                lambda: n(t).asnumpy(), r), lambda n=net, t=tx: digest(n(t).asnumpy())),
            Row(case, "microspore graph", lambda j=jitted, t=tx, r=reps: timed(
                lambda: j(t).asnumpy(), r), lambda j=jitted, t=tx: digest(j(t).asnumpy())),
        ]
        int8_rows.append(Row(case, "lite int8", lambda f=int8, r=reps: timed(f, r),
                             lambda: None))
        # one thread each too: no thread team to wake (or to spin on a busy machine)
        one = _lite_model(_convert(tmp, f"{case}-fp32", mindir), x, threads=1)
        so1 = ort.SessionOptions()
        so1.intra_op_num_threads, so1.inter_op_num_threads = 1, 1
        s1 = ort.InferenceSession(onnx_path, so1, providers=["CPUExecutionProvider"])
        rows += [
            Row(case, "lite fp32, 1 thread", lambda f=one, r=reps: timed(f, r),
                lambda f=one: digest(f())),
            Row(case, "onnxruntime, 1 thread", lambda r=reps, s=s1, d=feed: timed(
                lambda: s.run(None, d), r), lambda s=s1, d=feed: digest(s.run(None, d)[0])),
        ]
    return rows, int8_rows


def lenet_accuracy(tmp: Path) -> list[str]:
    """Top-1 accuracy and file size of the trained LeNet5 (integration_tests/lite's
    checkpoint) on the bundled test digits: eager, lite fp32, fp16, int8."""
    ckpt = ROOT / "integration_tests" / "lite" / "data" / "lenet5_digits.ckpt"
    if not ckpt.exists():
        return [f"| (no {ckpt.name}: run integration_tests/lite/train_lenet.py) | | |"]
    sys.path.insert(0, str(ROOT / "examples"))
    import lenet

    import microspore as ms
    import microspore.dataset as ds

    net = lenet.LeNet5(10)
    ms.load_param_into_net(net, ms.load_checkpoint(str(ckpt)))
    net.set_train(False)
    data = ds.bundled.digits_dir()
    test = list(lenet.create_dataset(data, "test", training=False, batch_size=297)
                .create_tuple_iterator(output_numpy=True))
    (x, y), = test
    calib = next(lenet.create_dataset(data, "train", batch_size=128, training=False)
                 .create_tuple_iterator(output_numpy=True))[0]
    np.save(tmp / "calib.npy", calib)
    mindir = ms.export(net, ms.Tensor(x), file_name=str(tmp / "lenet_trained"))
    cfg = tmp / "full.cfg"
    cfg.write_text(f"[common_quant_param]\nquant_type=FULL_QUANT\n[data_preprocess_param]\n"
                   f"calibrate_path=x:{tmp / 'calib.npy'}\n")
    wq = tmp / "weight.cfg"
    wq.write_text("[common_quant_param]\nquant_type=WEIGHT_QUANT\n")
    import microspore_lite as mslite

    lines = [f"| microspore eager | {np.mean(net(ms.Tensor(x)).asnumpy().argmax(1) == y):.2%} "
             f"| {os.path.getsize(mindir)} (MINDIR) |"]
    for label, fp16, config in (("lite fp32", False, ""), ("lite fp16", True, ""),
                                ("lite weight-only int8", False, str(wq)),
                                ("lite int8 (FULL_QUANT)", False, str(cfg))):
        c = mslite.Converter()
        c.weight_fp16 = fp16
        path = c.convert(mslite.FmkType.MINDIR, mindir, str(tmp / label.replace(" ", "_")),
                         config_file=config).path
        out = _lite_model(path, x)()
        lines.append(f"| {label} | {np.mean(out.argmax(1) == y):.2%} | "
                     f"{os.path.getsize(path)} |")
    return lines


def _import_time() -> dict:
    code = ("import time; t = time.perf_counter(); import microspore_lite as m; m.Model; "
            "m.Context; print(time.perf_counter() - t)")
    code_ort = "import time; t = time.perf_counter(); import onnxruntime; " \
               "print(time.perf_counter() - t)"
    out = {}
    for label, c in (("microspore_lite", code), ("onnxruntime", code_ort)):
        samples = [float(subprocess.run([sys.executable, "-c", c], capture_output=True,
                                        text=True, timeout=120, env=START_ENV).stdout)
                   for _ in range(5)]
        out[label] = median_iqr(samples)[0]
    return out


def _installed_size() -> dict:
    sys.path.insert(0, str(ROOT))
    import importlib.metadata as md

    from integration_tests.lite._alone import closure

    def size(paths):
        total = 0
        for p in paths:
            for dirpath, _, files in os.walk(p):
                if "__pycache__" in dirpath or "/tests" in dirpath:
                    continue
                total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files
                             if not f.endswith((".c", ".pyx")))
        return total

    def dist_paths(names):
        paths = []
        for n in closure(names):
            src = ROOT / "packages" / n / "src"
            if src.is_dir():
                paths.append(src)
                continue
            d = md.distribution(n)
            base = Path(d._path).parent
            paths += {base / f.parts[0] for f in d.files or []
                      if not f.parts[0].endswith(".dist-info") and f.parts[0] != ".."}
        return paths
    return {"ms-lite runtime (ms-lite, ms-tensor, ms-ops and their dependencies)":
            size(dist_paths(["ms-lite"])), "onnxruntime (and its dependencies)":
            size(dist_paths(["onnxruntime"]))}


def main(argv=None) -> int:
    args = arg_parser(__doc__, CASES).parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    cases = args.case or list(CASES)
    before = os.getloadavg()[0]
    notes, workers, sizes = [], [], {}
    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "data.npz")
        make_data(data_path)
        rows, int8_rows = driver_rows(data_path, Path(tmp), cases, notes, sizes)
        env = dict(START_ENV)
        rows += worker_rows(__file__, data_path, env, notes, workers,
                            dict.fromkeys(cases, "MindSpore 2.10 PyNative"))
        try:
            rows = check_agreement(rows, notes, "lite fp32", atol=1e-4) + int8_rows
            for case in cases:
                n, reps = PLAN[case]
                run_rounds(rows, case, 3 if args.quick else n, 1 if args.quick else 3, 0.05)
        finally:
            for w in workers:
                w.close()
    print(machine())
    print(load_line(before))
    print(rounds_line({c: PLAN[c] for c in cases}, cases, args.quick))
    print()
    print("| case | implementation | latency (µs) | vs onnxruntime |")
    print("|---|---|---|---|")
    for case in cases:
        case_rows = [r for r in rows if r.case == case and r.samples]
        ort_med = next((median_iqr(r.samples)[0] for r in case_rows
                        if r.label == "onnxruntime"), None)
        for r in case_rows:
            med = median_iqr(r.samples)[0]
            ratio = f"{med / ort_med:.2f}x" if ort_med else "-"
            print(f"| {case} | {r.label} | {num(med * 1e6)} | {ratio} |")
    print()
    print("| model | file | bytes |")
    print("|---|---|---|")
    for net, files in sizes.items():
        for label, b in files.items():
            print(f"| {net} | {label} | {b} |")
    print()
    print("| LeNet5 trained by the main job, 297 test digits | top-1 | file bytes |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        print("\n".join(lenet_accuracy(Path(tmp))))
    print()
    for label, t in _import_time().items():
        print(f"- import time of {label}: {t * 1e3:.0f} ms (median of 5 fresh processes)")
    for label, b in _installed_size().items():
        print(f"- installed size of {label}: {b / 2 ** 20:.1f} MiB")
    goals = []
    for case in [c for c in cases if c.endswith("b1")]:  # the goal: batch 1
        med = {r.label: median_iqr(r.samples)[0] for r in rows if r.case == case and r.samples}
        for sfx in ("", ", 1 thread"):
            lite, ort_ = med.get("lite fp32" + sfx), med.get("onnxruntime" + sfx)
            if lite and ort_:
                goals.append(f"{case}{sfx}: lite fp32 {num(lite * 1e6)} µs vs onnxruntime "
                             f"{num(ort_ * 1e6)} µs -> {'met' if lite <= ort_ else 'NOT met'}")
    print_notes(notes, rows, goals)
    return 0


if __name__ == "__main__":
    t0 = time.perf_counter()
    rc = main()
    print(f"(total {time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    sys.exit(rc)
