"""ImageClassificationRunner: explains a dataset, scores and ranks the methods, records
the scores through SummaryRecord and the explanations for the dashboard."""

import json
import os

import numpy as np
import pytest

import ms_nn as nn
from ms_insight.benchmark import ClassSensitivity, Faithfulness, Localization
from ms_insight.explainer import GradCAM, Gradient, GuidedBackprop
from ms_insight.runner import ExplainResult, ImageClassificationRunner

CLASSES = ["0", "1", "4", "7"]


def explain_run(summary_dir, digits_task, n=8, hoc=True):
    net, x, y, masks = digits_task
    data = [(x[i:i + 4], y[i:i + 4], masks[i:i + 4]) for i in range(0, n, 4)]
    sm = nn.Softmax()
    runner = ImageClassificationRunner(summary_dir, (data, CLASSES), net, sm)
    runner.register_saliency(
        [Gradient(net), GuidedBackprop(net), GradCAM(net, "relu2")],
        [Localization(4, "IoSR"), Faithfulness(4, sm, "InsertionAUC"), ClassSensitivity()])
    if hoc:
        runner.register_hierarchical_occlusion(threshold=0.5)
    return runner.run(progress_bar=False)


@pytest.fixture(scope="module")
def run(digits_task, tmp_path_factory):
    d = tmp_path_factory.mktemp("runs") / "explain_run"
    return d, explain_run(d, digits_task)


def test_run_scores_and_ranks_every_method(run):
    _, result = run
    assert isinstance(result, ExplainResult) and result.num_samples == 8
    assert set(result.scores) == {"Gradient", "GuidedBackprop", "GradCAM"}
    for row in result.scores.values():
        assert set(row) == {"Localization(IoSR)", "Faithfulness(InsertionAUC)",
                            "ClassSensitivity"}
        assert all(0 <= v <= 1 for v in row.values())
    means = [m for _, m in result.ranking]
    assert means == sorted(means, reverse=True)
    assert result.ranking[0][1] == pytest.approx(np.mean(list(result.scores[
        result.ranking[0][0]].values())))
    assert len({tuple(r.values()) for r in result.scores.values()}) == 3  # no shared results


def test_a_score_threshold_fails_a_test(run):
    _, result = run
    result.require("Localization(IoSR)", 0.3)  # every method localizes the digit
    with pytest.raises(AssertionError, match="below the required 1.01"):
        result.require("Faithfulness(InsertionAUC)", 1.01, method="Gradient")
    with pytest.raises(KeyError, match="not scored on 'Robustness'"):
        result.require("Robustness", 0.1)


def test_explain_json_and_pictures_for_the_dashboard(run):
    d, result = run
    doc = json.loads((d / "explain" / "explain.json").read_text())
    assert doc["classes"] == CLASSES and doc["methods"] == ["Gradient", "GuidedBackprop",
                                                            "GradCAM"]
    assert len(doc["samples"]) == 8 and doc["hoc"]
    for s in doc["samples"]:
        assert os.path.isfile(d / "explain" / s["image"])
        for method in doc["methods"]:
            assert str(s["label"]) in s["saliency"][method]
            for path in s["saliency"][method].values():
                assert os.path.isfile(d / "explain" / path)
        assert s["correct"] == (s["label"] == s["pred"])
        assert s["hoc"]["label"] == s["pred"]
        for step in s["hoc"]["steps"]:
            assert os.path.isfile(d / "explain" / step["image"])


def test_scores_are_recorded_as_tensorboard_scalars_and_lineage(run):
    d, result = run
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = [f for f in os.listdir(d) if ".tfevents." in f]
    assert len(files) == 1
    acc = EventAccumulator(str(d / files[0]))
    acc.Reload()
    tag = "explain/Gradient/Localization(IoSR)"
    assert tag in acc.Tags()["scalars"]
    assert acc.Scalars(tag)[0].value == pytest.approx(result.scores["Gradient"][
        "Localization(IoSR)"], rel=1e-6)
    lineage = json.loads((d / "lineage.json").read_text())
    assert lineage["custom_lineage_data"]["explain_ranking"] == [m for m, _ in result.ranking]


def test_runner_errors(digits_task, tmp_path):
    net, x, y, _ = digits_task
    runner = ImageClassificationRunner(tmp_path, ([(x[:2], y[:2])], CLASSES), net, nn.Softmax())
    with pytest.raises(ValueError, match="nothing registered"):
        runner.run()
    other = GuidedBackprop(type(net)())
    with pytest.raises(ValueError, match="explains another network"):
        runner.register_saliency([other])
    runner.register_saliency([Gradient(net)], [Localization(4, "IoSR")])
    with pytest.raises(ValueError, match=r"Localization\(IoSR\) needs object masks"):
        runner.run()
    bad = ImageClassificationRunner(tmp_path, ([(x[:2], np.array([0, 9]))], CLASSES), net,
                                    nn.Softmax())
    bad.register_saliency([Gradient(net)])
    with pytest.raises(ValueError, match=r"labels \[0, 9\] out of range for 4 class names"):
        bad.run()
