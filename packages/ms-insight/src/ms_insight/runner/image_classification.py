"""``ImageClassificationRunner``: explain a dataset with several methods, score every
method with the registered metrics, and record it all for the dashboard.

What a run leaves in ``summary_dir``: a TensorBoard event file (the scores as scalars,
the first inputs as an image; through ``SummaryRecord``), ``lineage.json`` with the
ranking, and ``explain/``: ``explain.json`` (samples, labels, predictions, scores, HOC
steps) with the PNGs it names, which ``microspore insight start`` shows.
"""

from __future__ import annotations

import copy
import json
import os

import numpy as np

from ms_insight.benchmark import ClassSensitivity, Localization
from ms_insight.explainer import HierarchicalOcclusion
from ms_insight.explainer._common import forward_probs, to_tensor
from ms_insight.runner import _images
from ms_insight.runner._data import batches
from ms_insight.runner.result import ExplainResult

__all__ = ["ImageClassificationRunner", "metric_name"]


def metric_name(metric) -> str:
    """``"Faithfulness(DeletionAUC)"``, ``"Robustness"``: how scores are keyed."""
    sub = getattr(metric, "_metric", None)
    return f"{type(metric).__name__}({sub})" if sub else type(metric).__name__


def _no_nan(v):
    """JSON has no NaN (browsers reject it): a score that is not a number becomes null."""
    if isinstance(v, float) and np.isnan(v):
        return None
    if isinstance(v, dict):
        return {k: _no_nan(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_no_nan(x) for x in v]
    return v


class ImageClassificationRunner:
    """Explain and score an image classifier on a dataset (MindSpore's runner).

    Args:
        summary_dir: the run's directory (created).
        data: ``(dataset, class_names)``; the dataset yields ``(images, labels)`` or
            ``(images, labels, masks)`` batches (masks of the objects, for Localization).
        network: the classifier Cell.
        activation_fn: logits to probabilities (``nn.Softmax()``).
    """

    def __init__(self, summary_dir, data, network, activation_fn):
        if not isinstance(data, (tuple, list)) or len(data) != 2:
            raise ValueError("ImageClassificationRunner: data must be (dataset, class_names)")
        self._dir = os.fspath(summary_dir)
        self._dataset, names = data
        self._classes = [str(n) for n in names]
        if not self._classes:
            raise ValueError("ImageClassificationRunner: class_names is empty")
        self._network = network
        self._activation_fn = activation_fn
        self._explainers = []
        self._metrics = []
        self._hoc = None

    def register_saliency(self, explainers, benchmarkers=None) -> None:
        """Explain with ``explainers`` (built on this runner's network) and score each with
        every metric in ``benchmarkers``."""
        explainers = list(explainers)
        if not explainers:
            raise ValueError("register_saliency: give at least one explainer")
        for e in explainers:
            if getattr(e, "network", None) is not self._network:
                raise ValueError(f"register_saliency: {type(e).__name__} explains another "
                                 "network than this runner's")
        names = [e.name for e in explainers]
        if len(set(names)) != len(names):
            raise ValueError(f"register_saliency: explainer names repeat: {names}")
        self._explainers = explainers
        self._metrics = list(benchmarkers or [])

    def register_hierarchical_occlusion(self, threshold: float = 0.5, window_sizes=None) -> None:
        """Also search, for each sample's predicted label, the smallest region that keeps it."""
        self._hoc = HierarchicalOcclusion(self._network, self._activation_fn, threshold,
                                          window_sizes)

    def run(self, max_samples: int | None = None, progress_bar: bool | None = None):
        """Explain the dataset (at most ``max_samples`` samples); returns ``ExplainResult``."""
        if not self._explainers and self._hoc is None:
            raise ValueError("ImageClassificationRunner.run: nothing registered "
                             "(register_saliency / register_hierarchical_occlusion)")
        from ms_insight import SummaryRecord, progress

        out = os.path.join(self._dir, "explain")
        for sub in ("images", "saliency", "hoc"):
            os.makedirs(os.path.join(out, sub), exist_ok=True)
        metrics = {e.name: [copy.copy(m) for m in self._metrics] for e in self._explainers}
        for ms in metrics.values():
            for m in ms:
                m.reset()
        samples, first = [], None
        bar = progress(total=max_samples, desc="explain", enabled=progress_bar, unit="img")
        with bar:
            for images, labels, masks in batches(self._dataset):
                if max_samples is not None:
                    room = max_samples - len(samples)
                    if room <= 0:
                        break
                    images, labels = images[:room], labels[:room]
                    masks = None if masks is None else masks[:room]
                if first is None:
                    first = images
                samples += self._batch(out, images, labels, masks, metrics, len(samples))
                bar.update(len(images))
        result = self._result(metrics, samples)
        result.path = out
        with SummaryRecord(self._dir, file_suffix="_explain") as record:
            for method, row in result.scores.items():
                for metric, value in row.items():
                    if not np.isnan(value):
                        record.add_value("scalar", f"explain/{method}/{metric}", value)
            if first is not None:
                record.add_value("image", "explain/inputs", first[:16])
            record.add_value("custom_lineage_data", "explain",
                             {"explain_ranking": [m for m, _ in result.ranking],
                              "explain_samples": result.num_samples})
            record.record(1)
        self._write_json(out, result, samples)
        return result

    def _batch(self, out, images, labels, masks, metrics, offset):
        if labels.min() < 0 or labels.max() >= len(self._classes):
            raise ValueError(f"ImageClassificationRunner: labels {labels.tolist()} out of range "
                             f"for {len(self._classes)} class names")
        probs = forward_probs(self._network, self._activation_fn, images, 64)
        preds = probs.argmax(axis=1)
        rows = []
        for i in range(len(images)):
            sid = offset + i
            _images.save_png(_images.to_gray_rgb(images[i]), os.path.join(out, "images",
                                                                           f"{sid}.png"))
            rows.append({"id": sid, "label": int(labels[i]), "pred": int(preds[i]),
                         "prob": float(probs[i, preds[i]]),
                         "label_prob": float(probs[i, labels[i]]),
                         "correct": bool(preds[i] == labels[i]),
                         "image": f"images/{sid}.png", "saliency": {}, "scores": {}})
        for e in self._explainers:
            for which, targets in (("label", labels), ("pred", preds)):
                if which == "pred" and (preds == labels).all():
                    break
                sal = e(to_tensor(images), targets.tolist(), show=False).asnumpy()
                if which == "label":
                    self._score(e, metrics[e.name], images, labels, masks, sal, rows)
                for i, row in enumerate(rows):
                    name = f"saliency/{e.name}_{row['id']}_{int(targets[i])}.png"
                    _images.save_png(_images.heat_overlay(images[i], sal[i, 0]),
                                     os.path.join(out, name))
                    row["saliency"].setdefault(e.name, {})[str(int(targets[i]))] = name
        if self._hoc is not None:
            for i, res in enumerate(self._hoc(images, preds)):
                rows[i]["hoc"] = self._hoc_record(out, images[i], rows[i]["id"], res)
        return rows

    def _score(self, explainer, metrics, images, labels, masks, sal, rows):
        for m in metrics:
            name = metric_name(m)
            if isinstance(m, ClassSensitivity):
                res = m.evaluate(explainer, images)
                m.aggregate(res)
            elif isinstance(m, Localization):
                if masks is None:
                    raise ValueError(f"ImageClassificationRunner: {name} needs object masks: "
                                     "the dataset must yield (images, labels, masks)")
                res = m.evaluate(explainer, images, labels, sal, mask=masks)
                m.aggregate(res, labels)
            else:
                res = m.evaluate(explainer, images, labels, sal)
                m.aggregate(res, labels)
            for row, value in zip(rows, np.asarray(res, float)):
                row["scores"].setdefault(explainer.name, {})[name] = float(value)

    def _hoc_record(self, out, image, sid, res):
        steps = []
        for k, step in enumerate(res.steps):
            name = f"hoc/{sid}_{k}.png"
            _images.save_png(_images.occlusion_view(image, step.mask), os.path.join(out, name))
            steps.append({"window": step.window, "prob": step.prob, "image": name,
                          "kept": float(step.mask.mean())})
        return {"label": res.label, "prob": res.prob, "found": res.found,
                "masked_prob": res.masked_prob, "kept": res.kept_fraction, "steps": steps}

    def _result(self, metrics, samples) -> ExplainResult:
        scores = {}
        for method, ms in metrics.items():
            scores[method] = {metric_name(m): (m.performance if m.get_results() else
                                               float("nan")) for m in ms}
        overall = {m: float(np.nanmean(list(v.values()))) if v and not
                   all(np.isnan(list(v.values()))) else float("nan")
                   for m, v in scores.items()}
        ranking = sorted(overall.items(), key=lambda kv: (-np.nan_to_num(kv[1], nan=-1), kv[0]))
        acc = float(np.mean([s["correct"] for s in samples])) if samples else float("nan")
        return ExplainResult(scores, ranking, len(samples), acc)

    def _write_json(self, out, result, samples):
        doc = {"classes": self._classes, "methods": [e.name for e in self._explainers],
               "metrics": [metric_name(m) for m in self._metrics],
               "scores": result.scores, "ranking": result.ranking,
               "accuracy": result.accuracy, "hoc": self._hoc is not None, "samples": samples}
        tmp = os.path.join(out, "explain.json.tmp")
        with open(tmp, "w") as f:
            json.dump(_no_nan(doc), f, indent=1, allow_nan=False)
        os.replace(tmp, os.path.join(out, "explain.json"))
