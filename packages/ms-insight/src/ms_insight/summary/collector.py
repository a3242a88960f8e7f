"""``SummaryCollector``: MindSpore's callback that records a training run's summaries.

Every ``collect_freq`` steps (and at the first) it records the loss, the learning rate,
the input images of the batch (when they are NCHW images) and histograms of the
weights; once, the network's graph (the compiled one in GRAPH_MODE, else the forward
pass captured on the first batch); at the end of evaluation, the metrics. The run's
lineage (``ms_insight.lineage``) gets the network, loss function, optimizer,
hyperparameters, the datasets' paths and sizes, the metrics, the final loss, the last
checkpoint and the time taken.
"""

from __future__ import annotations

import os
import re
import time

import numpy as np

from ms_insight.landscape import metadata as landscape_metadata
from ms_insight.lineage import update_lineage
from ms_insight.lineage.dataset_graph import dataset_graph
from ms_insight.summary.collect_info import dataset_info, learning_rate, network_name
from ms_insight.summary.network_graph import compiled_graph, forward_graph
from ms_insight.summary.record import SummaryRecord
from ms_nn.train.callbacks.callback import Callback, loss_value

__all__ = ["SummaryCollector"]

_DEFAULTS = {"collect_metric": True, "collect_graph": True, "collect_train_lineage": True,
             "collect_eval_lineage": True, "collect_input_data": True,
             "collect_dataset_graph": True, "histogram_regular": None,
             # MindSpore's default: checkpoints at steps 1-19 for SummaryLandscape
             "collect_landscape": landscape_metadata.DEFAULTS}
_MAX_HISTOGRAMS = 5  # MindSpore's default without histogram_regular: the first five weights


# TensorSummary values are recorded at most this many times in a run by default.
_TENSOR_STEPS = 20


class SummaryCollector(Callback):
    """Record loss, metrics, learning rate, input images, weight histograms, the graph
    and the lineage of a ``Model.train`` / ``Model.eval`` run into ``summary_dir``.

    Args:
        summary_dir: the run's directory (TensorBoard's ``--logdir`` takes its parent).
        collect_freq: record every this many steps (steps per sink in sink mode).
        collect_specified_data: a dict turning parts on or off (MindSpore's keys):
            ``collect_metric`` (loss, learning rate, eval metrics), ``collect_graph``,
            ``collect_train_lineage``, ``collect_eval_lineage``, ``collect_input_data``,
            ``histogram_regular`` (a regex of parameter names whose histograms are
            recorded; default: the first five trainable parameters; ``""``: none),
            ``collect_dataset_graph`` (the training dataset's pipeline, into the
            lineage: ``ms_insight.lineage.dataset_graph``), ``collect_landscape`` (a dict:
            the backbone's checkpoints at the steps/epochs of its ``intervals`` and
            ``ckpt_dir/train_metadata.json`` for ``SummaryLandscape``; keys and defaults
            as MindSpore's, ``ms_insight.landscape.metadata``; on by default, as in
            MindSpore: the checkpoints of steps 1-19; None: off). Unknown keys raise
            ValueError.
        keep_default_action: with ``collect_specified_data``, whether the other parts
            keep their defaults (True) or are off (False).
        custom_lineage_data: a dict of your own lineage fields (numbers and strings).
        collect_tensor_freq: record the summary operators' tensors (TensorSummary) only at
            steps that are multiples of this, among the recorded steps; by default at most
            20 times in a run, spread evenly (MindSpore's rule: tensors are large).
        max_file_size: the event file's byte budget (``SummaryRecord``).
    """

    def __init__(self, summary_dir, collect_freq: int = 10, collect_specified_data=None,
                 keep_default_action: bool = True, custom_lineage_data=None,
                 collect_tensor_freq=None, max_file_size=None, export_options=None):
        if not isinstance(collect_freq, int) or isinstance(collect_freq, bool) \
                or collect_freq <= 0:
            raise ValueError(f"SummaryCollector: collect_freq must be a positive int, got "
                             f"{collect_freq!r}")
        for name, value in (("collect_tensor_freq", collect_tensor_freq),
                            ("max_file_size", max_file_size)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or value <= 0):
                raise ValueError(f"SummaryCollector: {name} must be None or a positive int, "
                                 f"got {value!r}")
        if export_options:
            raise ValueError("SummaryCollector: export_options (tensor export to npy) is not "
                             "supported")
        if custom_lineage_data is not None and not (
                isinstance(custom_lineage_data, dict) and all(
                    isinstance(k, str) and isinstance(v, (str, int, float))
                    for k, v in custom_lineage_data.items())):
            raise TypeError("SummaryCollector: custom_lineage_data must be a dict of str to "
                            f"str/int/float, got {custom_lineage_data!r}")
        self._dir = summary_dir
        self._freq = collect_freq
        self._tensor_freq = collect_tensor_freq
        self._tensor_steps = None  # the steps whose TensorSummary values are kept, or None
        self._max_file_size = max_file_size
        self._what = self._settings(collect_specified_data, keep_default_action)
        self._custom = custom_lineage_data
        self._record: SummaryRecord | None = None
        self._histograms = None  # the Parameters whose histograms are recorded
        self._graph_done = False
        self._start = None
        self._last_loss = None
        self._last_step = 0
        self._cb = None  # the training run's cb_params, from its end to __exit__
        landscape = self._what["collect_landscape"]
        self._landscape = None if not landscape else _Landscape(summary_dir, landscape)

    @staticmethod
    def _settings(given, keep_default: bool) -> dict:
        if given is None:
            return dict(_DEFAULTS)
        if not isinstance(given, dict):
            raise TypeError(f"SummaryCollector: collect_specified_data must be a dict, got "
                            f"{type(given).__name__}")
        unknown = sorted(set(given) - set(_DEFAULTS))
        if unknown:
            raise ValueError(f"SummaryCollector: unknown collect_specified_data keys "
                             f"{unknown}; known: {sorted(_DEFAULTS)}")
        if given.get("collect_landscape") is not None:
            landscape_metadata.check(given["collect_landscape"], "SummaryCollector")
        what = dict(_DEFAULTS) if keep_default else \
            {k: (None if k == "histogram_regular" else False) for k in _DEFAULTS}
        if not keep_default and "histogram_regular" not in given:
            what["histogram_regular"] = ""
        what.update(given)
        regular = what["histogram_regular"]
        if regular is not None:
            if not isinstance(regular, str):
                raise TypeError(f"SummaryCollector: histogram_regular must be a str regex, "
                                f"got {regular!r}")
            try:
                re.compile(regular)
            except re.error as e:
                raise ValueError(f"SummaryCollector: histogram_regular {regular!r} is not a "
                                 f"regular expression: {e}") from None
        return what

    def _open(self) -> SummaryRecord:
        if self._record is None:
            self._record = SummaryRecord(self._dir, max_file_size=self._max_file_size)
        return self._record

    # -- training ---------------------------------------------------------------------
    def on_train_begin(self, run_context):
        cb = run_context.original_args()
        self._open()
        self._start = time.perf_counter()
        self._tensor_steps = self._tensor_range((cb.get("epoch_num") or 0)
                                                * (cb.get("batch_num") or 0))
        if self._what["collect_train_lineage"]:
            fields = {"summary_dir": os.path.abspath(self._record.log_dir),
                      "network": network_name(cb.get("network")),
                      "loss_function": network_name(cb.get("loss_fn")),
                      "optimizer": network_name(cb.get("optimizer")),
                      "hyper_parameters": {"epoch": cb.get("epoch_num"),
                                           "steps_per_epoch": cb.get("batch_num"),
                                           "dataset_sink_mode": cb.get("dataset_sink_mode")},
                      "train_dataset": dataset_info(cb.get("train_dataset"))}
            net = cb.get("network")
            if net is not None and hasattr(net, "trainable_params"):
                fields["parameter_count"] = int(sum(int(np.prod(p.shape))
                                                    for p in net.trainable_params()))
            batch = fields["train_dataset"].pop("batch_size", None)
            if batch is not None:
                fields["hyper_parameters"]["batch_size"] = batch
            lr = learning_rate(cb.get("optimizer"))
            if lr is not None:
                fields["hyper_parameters"]["learning_rate"] = lr
            if self._custom:
                fields["custom_lineage_data"] = self._custom
            update_lineage(self._record.log_dir, fields)
        if self._what["collect_dataset_graph"]:
            graph = dataset_graph(cb.get("train_dataset"))
            if graph is not None:
                update_lineage(self._record.log_dir, {"dataset_graph": graph})

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        step = cb.cur_step_num
        self._last_step = step
        if self._landscape is not None:
            self._landscape.at(cb, "step", step)
        loss = loss_value(cb.get("net_outputs"))
        if loss is not None:
            self._last_loss = loss
        first = not self._graph_done
        if not first and step % self._freq:
            return
        record = self._open()
        if self._what["collect_graph"] and not self._graph_done:
            self._add_graph(cb)
        if self._what["collect_metric"]:
            if loss is not None:
                record.add_value("scalar", "loss", loss)
            lr = learning_rate(cb.get("optimizer"))
            if lr is not None:
                record.add_value("scalar", "learning_rate", lr)
        if self._what["collect_input_data"]:
            self._add_images(cb.get("train_dataset_element"))
        self._add_histograms(cb.get("network") or cb.get("train_network"))
        keep = self._tensor_steps
        record.record(step, plugin_filter=None if keep is None or step in keep
                      else (lambda kind: kind != "tensor"))
        self._graph_done = True

    def _tensor_range(self, total_step: int):
        """The steps at which TensorSummary values are recorded (None: every recorded step):
        multiples of ``collect_tensor_freq``, or at most 20 steps spread over the run."""
        if self._tensor_freq is not None:
            return range(0, total_step + 1, self._tensor_freq)
        if len(range(0, total_step + 1, self._freq)) > _TENSOR_STEPS:
            spread = total_step // (_TENSOR_STEPS - 1)
            if spread > 1:
                return range(0, total_step + 1, spread)[:_TENSOR_STEPS]
        return None

    def _add_graph(self, cb) -> None:
        train_net = cb.get("train_network")
        graph = compiled_graph(train_net) if train_net is not None else None
        batch = cb.get("train_dataset_element")
        net = cb.get("network")
        inputs = None if batch is None else batch[:-1]  # the inputs, without the label
        if cb.get("loss_fn") is None and net is not None:
            # Model(train_cell): the cell takes the whole batch; a TrainOneStepCell's own
            # step would update the weights, so its loss network is captured instead
            net, inputs = getattr(net, "network", net) if hasattr(net, "optimizer") \
                else net, batch
        if graph is None and net is not None and inputs:
            try:
                graph = forward_graph(net, *inputs)
            except Exception as e:  # a network ms-graph cannot capture: no graph, say why
                import warnings

                warnings.warn(f"SummaryCollector: the network's graph is not recorded: "
                              f"{type(e).__name__}: {e}", RuntimeWarning, stacklevel=3)
        if graph is not None:
            self._record.add_value("graph", "train_network", graph)

    def _add_images(self, batch) -> None:
        if not batch:
            return
        from ms_tensor.tensor import array_of

        first = batch[0]
        images = array_of(first) if hasattr(first, "asnumpy") else np.asarray(first)
        if images.ndim == 4 and images.shape[1] in (1, 3, 4) and images.dtype.kind in "fiu":
            self._record.add_value("image", "input_data/auto", images)

    def _add_histograms(self, net) -> None:
        regular = self._what["histogram_regular"]
        if net is None or regular == "":
            return
        if self._histograms is None:
            params = list(net.trainable_params())
            self._histograms = params[:_MAX_HISTOGRAMS] if regular is None else \
                [p for p in params if re.search(regular, p.name)]
        for p in self._histograms:
            self._record.add_value("histogram", f"{p.name}/auto", p)

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        if self._landscape is not None:
            self._landscape.at(cb, "epoch", cb.cur_epoch_num)
        metrics = cb.get("metrics")  # Model.fit's validation results
        if metrics and self._what["collect_metric"]:
            self._record_metrics(metrics, cb.cur_step_num)

    def on_train_end(self, run_context):
        self._cb = run_context.original_args()
        if self._landscape is not None:
            self._landscape.end(self._cb)
        if self._record is not None and self._what["collect_train_lineage"]:
            update_lineage(self._record.log_dir, {
                "train_loss": self._last_loss,
                "train_time_s": None if self._start is None else
                round(time.perf_counter() - self._start, 3)})

    # -- evaluation -------------------------------------------------------------------
    def on_eval_end(self, run_context):
        cb = run_context.original_args()
        metrics = cb.get("metrics") or {}
        if self._what["collect_metric"] and metrics:
            self._record_metrics(metrics, self._last_step)
        if self._what["collect_eval_lineage"]:
            info = dataset_info(cb.get("valid_dataset"))
            info.pop("batch_size", None)
            update_lineage(self._dir, {"valid_dataset": info})

    def _record_metrics(self, metrics: dict, step: int) -> None:
        record = self._open()
        values = {k: _number(v) for k, v in metrics.items()}
        for name, v in values.items():
            if isinstance(v, float):
                record.add_value("scalar", f"eval/{name}", v)
        record.record(step)
        if self._what["collect_eval_lineage"]:
            update_lineage(self._dir, {"metrics": values})

    def __exit__(self, *exc):
        """After every callback's last hook: the checkpoint a later ModelCheckpoint saved
        at the end is known now; then the file is closed."""
        cb, self._cb = self._cb, None
        if self._record is None:
            return
        if cb is not None and self._what["collect_train_lineage"]:
            ckpt = cb.get("latest_ckpt_file") or _checkpoint_of(cb.get("list_callback"))
            if ckpt:
                update_lineage(self._record.log_dir, {"checkpoint": ckpt})
        self._record.close()
        self._record = None


class _Landscape:
    """``collect_landscape``: the backbone's checkpoints at the intervals' steps (or
    epochs), and at the end the metadata ``SummaryLandscape`` reads."""

    def __init__(self, summary_dir, settings: dict):
        self.settings = {**landscape_metadata.DEFAULTS, **settings}
        self.dir = os.path.join(os.path.realpath(os.fspath(summary_dir)), "ckpt_dir")
        os.makedirs(self.dir, exist_ok=True)
        self.groups = {str(i): list(g) for i, g in enumerate(self.settings["intervals"])}
        self.wanted = {n for g in self.groups.values() for n in g}
        self.files: dict[str, str] = {}

    def at(self, cb, unit: str, number: int) -> None:
        if unit != self.settings["unit"] or number not in self.wanted:
            return
        from ms_nn.train.checkpoint import save_checkpoint

        net = landscape_metadata.backbone_of(cb)
        path = landscape_metadata.checkpoint_path(self.dir, net, number, unit)
        save_checkpoint(net, path)
        self.files[str(number)] = path

    def end(self, cb) -> None:
        s = self.settings
        landscape_metadata.write(self.dir, {
            "epoch_group": self.groups, "model_params_file_map": self.files,
            "step_per_epoch": int(cb.get("batch_num") or 0), "unit": s["unit"],
            "num_samples": s["num_samples"], "landscape_size": s["landscape_size"],
            "create_landscape": s["create_landscape"]})


def _number(v):
    try:
        return float(np.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v).reshape(()))
    except (TypeError, ValueError):
        return v if isinstance(v, (str, int, float)) else str(v)


def _checkpoint_of(callbacks):
    for c in getattr(callbacks, "callbacks", None) or ():
        path = getattr(c, "latest_ckpt_file_name", "")
        if path:
            return path
    return None
