"""ms-insight: what summaries and the profiler cost, and (xai's cases) how fast explainers run.

Cases, each a function in ``CASES`` that returns its rows (add a case by adding one):

* ``summary`` -- a LeNet5 training step (the seed's network, batch 32 of 1x32x32, softmax
  cross-entropy, Momentum), PyNative and GRAPH_MODE, without summaries, then with a
  ``SummaryRecord`` writing the loss as a scalar every step (``add_value`` + ``record``),
  then with ``ops.ScalarSummary`` of the loss inside ``construct`` recorded every step,
  and the scalar's ``add_value`` + ``record`` alone (the cost the summary adds, which a
  busy machine's noise in the whole step can hide). Goal: under 5% of the step.
* ``collector`` -- whole steps of ``Model.train`` on LeNet5 without a callback and with
  ``SummaryCollector(collect_freq=1)`` recording the scalars (loss, learning rate) every
  step, the goal's setting; also the defaults every step (images, histograms, graph).
* ``profiler`` -- bench_ops' eager chain (``x = x + b; x = x * b`` 500 times on float32[16],
  1,000 operator calls), without a profiler and with one running: the profiler's cost per
  operator while it runs. With no profiler running nothing is installed in dispatch; that
  path is compared against the tree before the hook with ``bench_eager_ab.py`` (see
  docs/benchmarks.md).

All rows of a case run in this process, interleaved round by round (A B C A B C ...);
the table shows medians and each row's time relative to the case's first row.

* ``explainers`` -- seconds per explained image on LeNet5 (random weights from
  ``ms_insight.explainer.testing``): Gradient, Deconvolution, GuidedBackprop and GradCAM
  (layer conv2) on a batch of 32, Occlusion (3x3 window, stride 1) and RISE (500 masks) on
  2 images; next to Captum's Saliency, Deconvolution, GuidedBackprop, LayerGradCam and
  Occlusion on the same weights and images where torch and captum are installed
  (explanations per second = 1 / median).

Usage: ``python benchmarks/bench_insight.py [--quick] [--rounds N] [--cpu-time]
[--case summary|collector|profiler|explainers]``
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import _common  # noqa: F401 -- first: it sets the thread counts before numpy loads
import numpy as np
from _common import QUICK_NOTE, load_line, machine, median_iqr, num, timed

SUMMARY_STEPS = 5  # timed LeNet5 steps per sample
_CPU_TIME = []  # set by --cpu-time: the summary case measures process CPU time
CHAIN_REPS = 5  # chains of 1,000 operators per sample


class _Row:
    def __init__(self, case, label, run):
        self.case, self.label, self.run = case, label, run
        self.samples: list[float] = []


def _lenet(ms, summary_op: bool):
    nn = ms.nn

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.relu(self.fc1(self.flatten(x)))
            return self.fc3(self.relu(self.fc2(x)))

    class WithSummary(nn.Cell):
        """The loss cell with ``ops.ScalarSummary`` of the loss in its construct."""

        def __init__(self, net, loss_fn):
            super().__init__()
            self.net, self.loss_fn = net, loss_fn
            self.summary = ms.ops.ScalarSummary()

        def construct(self, x, y):
            loss = self.loss_fn(self.net(x), y)
            self.summary("loss", loss)
            return loss

    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    with_loss = WithSummary(net, loss_fn) if summary_op else nn.WithLossCell(net, loss_fn)
    train = nn.TrainOneStepCell(with_loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    train.set_train()
    return train


def case_summary(quick: bool) -> list:
    import microspore as ms

    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.random((32, 1, 32, 32), dtype=np.float32))
    y = ms.Tensor(rng.integers(0, 10, 32).astype(np.int32))
    a_loss = ms.Tensor(np.float32(2.3))
    rows = []
    directory = tempfile.mkdtemp(prefix="bench_insight_")
    for mode, mode_name in ((ms.PYNATIVE_MODE, "PyNative"), (ms.GRAPH_MODE, "GRAPH_MODE")):
        ms.set_context(mode=mode)
        plain, with_op = _lenet(ms, False), _lenet(ms, True)
        record = ms.SummaryRecord(os.path.join(directory, mode_name))
        count = [0]

        def in_mode(fn, mode=mode):
            def run():
                ms.set_context(mode=mode)
                if not _CPU_TIME:
                    return timed(fn, SUMMARY_STEPS)
                t = time.process_time()
                for _ in range(SUMMARY_STEPS):
                    fn()
                return (time.process_time() - t) / SUMMARY_STEPS
            return run

        def with_record(train=plain, record=record, count=count):
            loss = train(x, y)
            count[0] += 1
            record.add_value("scalar", "loss", loss)
            record.record(count[0])

        def with_operator(train=with_op, record=record, count=count):
            train(x, y)
            count[0] += 1
            record.record(count[0])

        def write_alone(record=record, count=count):
            count[0] += 1
            record.add_value("scalar", "loss", a_loss)
            record.record(count[0])

        rows += [_Row(f"summary {mode_name}", "no summary", in_mode(lambda t=plain: t(x, y))),
                 _Row(f"summary {mode_name}", "SummaryRecord scalar every step",
                      in_mode(with_record)),
                 _Row(f"summary {mode_name}", "ops.ScalarSummary every step",
                      in_mode(with_operator)),
                 _Row(f"summary {mode_name}", "the scalar's add_value + record alone",
                      in_mode(write_alone))]
    return rows


COLLECTOR_STEPS = 8  # LeNet5 steps (batches) per Model.train call, i.e. per sample


def case_collector(quick: bool) -> list:
    """``Model.train`` of LeNet5 over 8 batches of 32, without a callback, with a
    ``SummaryCollector`` recording scalars (loss, learning rate) every step, and with one
    left at its defaults (also input images, five weight histograms, the graph) every
    step; in PyNative and GRAPH_MODE. One row hands every record to the writer's worker
    thread at once (waking it every step) instead of batching a second's worth. Each sample is
    one ``train`` call, the collector's file opening and closing included."""
    import microspore as ms
    import microspore.dataset as ds

    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset(
        {"image": rng.random((32 * COLLECTOR_STEPS, 1, 32, 32), dtype=np.float32),
         "label": rng.integers(0, 10, 32 * COLLECTOR_STEPS).astype(np.int32)},
        shuffle=False).batch(32)
    from ms_insight.summary import _batches as record_module

    hand_over_s = record_module.HAND_OVER_S
    directory = tempfile.mkdtemp(prefix="bench_collector_")
    rows, runs = [], [0]
    for mode, mode_name in ((ms.PYNATIVE_MODE, "PyNative"), (ms.GRAPH_MODE, "GRAPH_MODE")):
        ms.set_context(mode=mode)
        train = _lenet(ms, False)
        model = ms.Model(train)  # the TrainOneStepCell: Model.train calls it per batch

        def run(collector_args, mode=mode, model=model, every_step=False, alone=False):
            def sample():
                ms.set_context(mode=mode)
                # every_step: each record handed to the writer's worker at once (it wakes
                # every step), instead of once a second
                record_module.HAND_OVER_S = 0.0 if every_step else hand_over_s
                callbacks = None
                if collector_args is not None:
                    runs[0] += 1
                    callbacks = [ms.SummaryCollector(
                        os.path.join(directory, f"run{runs[0]}"), collect_freq=1,
                        **collector_args)]
                    if alone:
                        spent = _time_step_end(callbacks[0])
                clock = time.process_time if _CPU_TIME else time.perf_counter
                t = clock()
                model.train(1, data, callbacks=callbacks)
                if alone:
                    return spent[0] / COLLECTOR_STEPS
                return (clock() - t) / COLLECTOR_STEPS
            return sample

        case = f"Model.train {mode_name}, per step"
        rows += [_Row(case, "no callback", run(None)),
                 _Row(case, "SummaryCollector, scalars every step", run({
                     "collect_specified_data": {"collect_metric": True},
                     "keep_default_action": False})),
                 _Row(case, "SummaryCollector, scalars, handed over every step", run({
                     "collect_specified_data": {"collect_metric": True},
                     "keep_default_action": False}, every_step=True)),
                 _Row(case, "SummaryCollector defaults, every step", run({})),
                 _Row(case, "the scalars collector's step-end callback alone (thread CPU)",
                      run({"collect_specified_data": {"collect_metric": True},
                           "keep_default_action": False}, alone=True))]
    return rows


def _time_step_end(collector) -> list:
    """Wrap ``collector.on_train_step_end`` to add the training thread's CPU time spent
    in it to the returned one-element list (CPU time: a busy machine's waits left out)."""
    spent = [0.0]
    step_end = collector.on_train_step_end

    def timed_step_end(run_context):
        t = time.thread_time()
        step_end(run_context)
        spent[0] += time.thread_time() - t

    collector.on_train_step_end = timed_step_end
    return spent


def case_profiler(quick: bool) -> list:
    from ms_insight import Profiler
    from ms_tensor import Tensor

    rng = np.random.default_rng(0)
    x0 = Tensor(rng.standard_normal(16).astype(np.float32))
    b = Tensor(np.full(16, 0.5, np.float32))

    def chain():
        x = x0
        for _ in range(500):
            x = x + b
            x = x * b
        return x

    def off():
        return timed(chain, CHAIN_REPS) / 1000

    def on():
        profiler = Profiler(output_path=tempfile.mkdtemp(prefix="bench_profiler_"))
        try:
            chain()  # plans again with the timed kernels, as the first step of a profile
            return timed(chain, CHAIN_REPS) / 1000
        finally:
            profiler.stop()

    return [_Row("profiler (per operator)", "no profiler", off),
            _Row("profiler (per operator)", "Profiler running", on)]


EXPLAIN_BATCH = 32  # images per explainer call (gradient methods)
PERTURB_BATCH = 2  # perturbation methods forward ~900 (Occlusion) or 500 (RISE) images each


def _torch_lenet(weights):
    """The same LeNet5 in PyTorch with microspore's weights, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    tnn = torch.nn

    class LeNet5(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(1, 6, 5, bias=False)
            self.conv2 = tnn.Conv2d(6, 16, 5, bias=False)
            self.fc1, self.fc2, self.fc3 = (tnn.Linear(400, 120), tnn.Linear(120, 84),
                                            tnn.Linear(84, 10))
            self.relu1, self.relu2, self.relu3, self.relu4 = (tnn.ReLU() for _ in range(4))
            self.pool = tnn.MaxPool2d(2, 2)

        def forward(self, x):
            x = self.pool(self.relu1(self.conv1(x)))
            x = self.pool(self.relu2(self.conv2(x)))
            x = self.relu3(self.fc1(x.flatten(1)))
            return self.fc3(self.relu4(self.fc2(x)))

    net = LeNet5().eval()
    with torch.no_grad():
        for name, p in net.named_parameters():
            p.copy_(torch.from_numpy(weights[name]))
    return net


def case_explainers(quick: bool) -> list:
    """Explanations per image on LeNet5: microspore's explainers and Captum's on the same
    weights and images (Captum rows only where torch and captum are installed)."""
    import ms_nn as nn
    from ms_insight import explainer as xai
    from ms_insight.explainer.testing import LeNet5, load_weights, random_weights

    weights = random_weights(LeNet5(), 0)
    net = load_weights(LeNet5(), weights)
    rng = np.random.default_rng(0)
    x = rng.random((EXPLAIN_BATCH, 1, 32, 32), dtype=np.float32)
    t = rng.integers(0, 10, EXPLAIN_BATCH)
    sm = nn.Softmax()
    ours = {"Gradient": xai.Gradient(net), "Deconvolution": xai.Deconvolution(net),
            "GuidedBackprop": xai.GuidedBackprop(net), "GradCAM": xai.GradCAM(net, "conv2"),
            "Occlusion": xai.Occlusion(net, sm, perturbation_per_eval=256),
            "RISE (500 masks)": xai.RISE(net, sm, perturbation_per_eval=250, num_masks=500,
                                         seed=0)}
    theirs = _captum(weights, x, t)
    rows = []
    for name, explainer in ours.items():
        n = EXPLAIN_BATCH if name in ("Gradient", "Deconvolution", "GuidedBackprop",
                                      "GradCAM") else PERTURB_BATCH
        case = f"explain {name}, per image (batch {n})"
        rows.append(_Row(case, "microspore", lambda e=explainer, n=n: timed(
            lambda: e(x[:n], t[:n].tolist()), 1) / n))
        if name in theirs:
            rows.append(_Row(case, "Captum (PyTorch)",
                             lambda f=theirs[name], n=n: timed(lambda: f(n), 1) / n))
    return rows


def _captum(weights, x, t) -> dict:
    """Captum's counterparts as ``{name: fn(n)}``; empty without torch + captum."""
    net = _torch_lenet(weights)
    try:
        import captum.attr as ca
        import torch
    except ImportError:
        return {}
    if net is None:
        return {}
    torch.set_num_threads(_common.THREADS)
    xt, tt = torch.from_numpy(x), torch.from_numpy(t)
    probs = torch.nn.Sequential(net, torch.nn.Softmax(dim=1)).eval()
    saliency, deconv, guided = ca.Saliency(net), ca.Deconvolution(net), ca.GuidedBackprop(net)
    gradcam, occlusion = ca.LayerGradCam(net, net.conv2), ca.Occlusion(probs)

    def amax(a):
        return a.abs().amax(dim=1, keepdim=True).detach()

    def cam(n):
        a = gradcam.attribute(xt[:n], tt[:n], relu_attributions=True)
        return ca.LayerAttribution.interpolate(a, (32, 32), "bilinear").detach()

    return {"Gradient": lambda n: amax(saliency.attribute(xt[:n], tt[:n], abs=True)),
            "Deconvolution": lambda n: amax(deconv.attribute(xt[:n], tt[:n])),
            "GuidedBackprop": lambda n: amax(guided.attribute(xt[:n], tt[:n])),
            "GradCAM": cam,
            "Occlusion": lambda n: occlusion.attribute(
                xt[:n], (1, 3, 3), strides=(1, 1, 1), target=tt[:n], baselines=0,
                perturbations_per_eval=256).detach()}


def _rounds(case_rows, rounds: int, warmup: int) -> None:
    """Sample every row once per round, the order reversed every other round (A B C,
    C B A, ...): a neighbour's burst or a frequency change hits every row alike, and no row
    always runs right after the same other one (which would inherit its garbage or its
    writer thread's tail). The per-round ratio to the first row, taken from samples
    seconds apart, is steadier on a busy machine than the ratio of the medians."""
    print(f"running {case_rows[0].case}: {rounds} rounds x {len(case_rows)} variants ...",
          file=sys.stderr, flush=True)
    for i in range(warmup + rounds):
        for r in (case_rows if i % 2 == 0 else case_rows[::-1]):
            t = r.run()
            if i >= warmup:
                r.samples.append(t)


CASES = {"summary": case_summary, "collector": case_collector, "profiler": case_profiler,
         "explainers": case_explainers}


def main(argv=None) -> int:
    p = _common.arg_parser(__doc__, list(CASES))
    p.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15)")
    p.add_argument("--cpu-time", action="store_true",
                   help="summary case: CPU time of the process (all its threads, the event "
                        "writer's too) instead of wall time, steadier on a busy machine")
    args = p.parse_args(argv)
    if args.cpu_time:
        _CPU_TIME.append(True)
    cases = args.case or list(CASES)
    rounds, warmup = (3, 1) if args.quick else (args.rounds, 2)
    before = os.getloadavg()[0]
    print(machine())
    print(f"Medians over {rounds} rounds after {warmup} warm-up rounds; rows interleaved "
          f"within each round." + (QUICK_NOTE if args.quick else ""))
    print()
    print("| case | variant | median | IQR | vs first row | per-round ratio, median (IQR) |")
    print("|---|---|---|---|---|---|")
    for name in cases:
        rows = CASES[name](args.quick)
        for case in dict.fromkeys(r.case for r in rows):
            _rounds([r for r in rows if r.case == case], rounds, warmup)
        for case in dict.fromkeys(r.case for r in rows):
            case_rows = [r for r in rows if r.case == case]
            base = median_iqr(case_rows[0].samples)[0]
            for r in case_rows:
                med, lo, hi = median_iqr(r.samples)
                unit, scale = ("us", 1e6) if med < 1e-3 else ("ms", 1e3)
                rmed, rlo, rhi = median_iqr([b / a - 1 for a, b in zip(
                    case_rows[0].samples, r.samples)])
                paired = "" if r is case_rows[0] else f"{rmed:+.1%} ({rlo:+.1%}..{rhi:+.1%})"
                print(f"| {case} | {r.label} | {num(med * scale)} {unit} | "
                      f"{num(lo * scale)}-{num(hi * scale)} | {med / base - 1:+.1%} | "
                      f"{paired} |")
    print()
    print(load_line(before))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
