"""Before/after on one machine: bench_ops' eager chain in several trees, interleaved.

Each implementation runs in its own worker process (this interpreter, with the
``PYTHONPATH`` given), and every round takes one sample (one chain of 1,000 ops:
``x = x + b; x = x * b`` 500 times on float32[16]) from each worker in turn, so two
checkouts of microspore, PyTorch and numpy meet the same load. The table shows medians.

Usage: ``python benchmarks/bench_eager_ab.py ROUNDS 'LABEL=MODE@PYTHONPATH' ...`` with MODE
one of ``ms``, ``ms-tape`` (inside an ms-autodiff Tape watching ``b``), ``torch``,
``torch-grad`` (``b`` requires grad) or ``numpy``; an empty PYTHONPATH means this
interpreter's own packages. A label may not contain ``=``.
"""

import json
import os
import statistics
import subprocess
import sys

# The worker: set up one implementation, then time one chain per line read from stdin.
WORKER = r'''
import sys, time, json, numpy as np
mode = sys.argv[1]
rng = np.random.default_rng(0)
xn = rng.standard_normal(16).astype(np.float32); bn = np.full(16, .5, np.float32)
def chain(x, b):
    for _ in range(500):
        x = x + b; x = x * b
    return x
if mode.startswith("ms"):
    from ms_tensor import Tensor
    import ms_ops
    x, b = Tensor(xn), Tensor(bn)
    run = lambda: chain(x, b).asnumpy()
    if mode == "ms-tape":
        from ms_autodiff.tape import Tape
        def run():
            with Tape() as tape:
                tape.watch(b)
                return chain(x, b).asnumpy()
elif mode.startswith("torch"):
    import torch
    torch.set_num_threads(2)
    x, b = torch.from_numpy(xn.copy()), torch.from_numpy(bn.copy())
    if mode == "torch-grad":
        b = b.clone().requires_grad_(True)
    run = lambda: chain(x, b)
else:
    run = lambda: chain(xn, bn)
run(); run()
for line in sys.stdin:
    t = time.perf_counter(); run(); print(json.dumps(time.perf_counter() - t), flush=True)
'''


def main(argv) -> int:
    rounds = int(argv[0])
    procs = {}
    for spec in argv[1:]:
        name, rest = spec.split("=", 1)
        mode, path = rest.split("@", 1)
        env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2",
                   MKL_NUM_THREADS="2")
        env.pop("PYTHONPATH", None)
        if path:
            env["PYTHONPATH"] = path
        procs[name] = subprocess.Popen([sys.executable, "-c", WORKER, mode], env=env,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    samples = {n: [] for n in procs}
    for _ in range(rounds):
        for n, p in procs.items():
            p.stdin.write("go\n")
            p.stdin.flush()
            samples[n].append(json.loads(p.stdout.readline()))
    for p in procs.values():
        p.stdin.close()
        p.wait()
    print(f"{rounds} rounds, one sample = one chain of 1,000 ops, workers interleaved; "
          f"1-minute load {os.getloadavg()[0]:.1f}")
    print("| implementation | median us/op | IQR |")
    print("|---|---:|---:|")
    for n, v in samples.items():
        q = statistics.quantiles(v, n=4)
        print(f"| {n} | {statistics.median(v) * 1e3:.2f} | {q[0] * 1e3:.2f}-{q[2] * 1e3:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
