"""docs/compatibility.md matches the coverage tool, and the tool's scope rules do what they say."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def _load(name: str):
    sys.path.insert(0, str(TOOLS))
    try:
        spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(TOOLS))


coverage = _load("api_coverage")
scope = coverage.api_scope
_spec = importlib.util.spec_from_file_location("_api_cases", TOOLS.parent / "integration_tests"
                                               / "_api_cases.py")
api_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(api_cases)


def test_doc_is_up_to_date():
    assert coverage.main(["--check"]) == 0, "run: .venv/bin/python tools/api_coverage.py"


def test_known_differences_are_documented():
    known = coverage.DOC.read_text().split("## Known differences", 1)[1]
    missing = [cid for cid in api_cases.KNOWN_DIFFERENCES if f"`{cid}`" not in known]
    assert not missing, f"add to docs/compatibility.md, Known differences: {missing}"
    ids = {cid for cid, _, _ in api_cases.CASES}
    assert set(api_cases.KNOWN_DIFFERENCES) <= ids
    n, n_known = len(ids), len(api_cases.KNOWN_DIFFERENCES)
    assert f"{n} calls" in known and f"{n - n_known} agree, {n_known} differ" in known


def test_listing_records_how_it_was_made():
    listing = json.loads(coverage.LISTING.read_text())
    assert listing["mindspore_version"].startswith("2.10")
    assert "tools/api_listing.py" in listing["command"]
    assert set(scope.FAMILY) == set(listing["namespaces"])


def test_every_name_is_counted_once():
    listing = json.loads(coverage.LISTING.read_text())
    for ns, r in coverage.measure(listing).items():
        counted = r["present"] + sum(r["out"].values(), []) + sum(r["missing"].values(), [])
        assert sorted(counted) == sorted(listing["namespaces"][ns]["names"]), ns


@pytest.mark.parametrize("name, expected", [
    ("ScatterNdAdd", "scatter_nd_add"), ("MaxPool3D", "max_pool3_d"), ("TopK", "top_k"),
    ("scatter_nd_add", "scatter_nd_add"), ("mT", "mT"), ("IOU", "iou"),
])
def test_snake_case_of_primitive_names(name, expected):
    assert scope.snake(name) == expected


@pytest.mark.parametrize("ns, name, reason_part", [
    ("mindspore.ops", "flash_attention_score", "Ascend-only"),
    ("mindspore.ops", "NPUGetFloatStatus", "Ascend-only"),
    ("mindspore.ops", "augassign_add", "graph compiler"),
    ("mindspore.ops", "TupleToArray", "graph compiler"),
    ("mindspore.ops", "CustomRegOp", "define new operators"),
    ("mindspore.ops", "gen_ops_def", "implementation modules"),
    ("mindspore.Tensor", "assign_value_cpp", "C++ tensor"),
    ("mindspore.dataset", "IMDBDataset", "benchmark corpus"),
    ("mindspore.dataset.vision", "read_video", "FFmpeg"),
])
def test_out_of_scope_rows_name_their_reason(ns, name, reason_part):
    assert reason_part in scope.out_of_scope(ns, name, {})


@pytest.mark.parametrize("ns, name", [
    ("mindspore.ops", "scatter_nd_add"), ("mindspore.ops", "linspace"),
    ("mindspore.dataset", "MnistDataset"), ("mindspore.dataset", "Cifar100Dataset"),
    ("mindspore.Tensor", "masked_fill"), ("mindspore.ops", "scalar_to_tensor"),
])
def test_tutorial_names_stay_in_scope(ns, name):
    assert scope.out_of_scope(ns, name, {}) is None


def test_deprecated_names_carry_version_and_substitute():
    entry = {"deprecated": {"TensorAdd": "since 1.1, use Add"}}
    assert scope.out_of_scope("mindspore.ops", "TensorAdd", entry) == \
        "deprecated in MindSpore (since 1.1, use Add)"


def test_leak_rows_apply_only_outside_all():
    assert scope.out_of_scope("mindspore.mint", "equal_ext_op", {"not_in_all": []}) is None
    assert "__all__" in scope.out_of_scope("mindspore.mint", "equal_ext_op",
                                           {"not_in_all": ["equal_ext_op"]})
    assert scope.out_of_scope("mindspore.mint", "linspace", {"not_in_all": ["linspace"]}) is None


@pytest.mark.parametrize("ns, name, kind, group", [
    ("mindspore.ops", "TopK", "primitive", "sort, search and counting"),
    ("mindspore.ops", "all_reduce", "function", "communication"),
    ("mindspore.ops", "coo_abs", "function", "sparse"),
    ("mindspore.ops", "cholesky", "function", "linear algebra"),
    ("mindspore.ops", "MaskedFill", "primitive", "indexing and scatter"),
    ("mindspore.ops", "ScalarSummary", "primitive", "graph, autodiff and control flow"),
    ("mindspore.ops", "hypot", "function", "elementwise math"),
    ("mindspore.Tensor", "masked_fill_", "method", "in-place (trailing _)"),
    ("mindspore.nn", "HuberLoss", "class", "losses"),
    ("mindspore.nn", "AdaptiveMaxPool2d", "class", "pooling"),
    ("mindspore.dataset", "Cifar100Dataset", "class", "sources"),
    ("mindspore.dataset.vision", "RandomErasing", "class", "random transforms"),
    ("mindspore.train", "MAE", "class", "metrics"),
    ("mindspore", "float8_e5m2", "constant", "dtypes"),
    ("mindspore", "runtime", "module", "submodules"),
])
def test_missing_names_are_grouped_by_what_they_are(ns, name, kind, group):
    assert scope.group_of(ns, name, kind) == group


def test_measure_counts_present_out_and_missing():
    listing = {"namespaces": {"mindspore.ops": {
        "names": {"Abs": "primitive", "TensorAdd": "primitive", "hypot": "function"},
        "deprecated": {"TensorAdd": "since 1.1, use Add"}}}}
    r = coverage.measure(listing, resolve=lambda ns: type("ops", (), {"Abs": 1, "hypot": 2}),
                         plugin_names={"mindspore.ops": {"hypot"}},
                         compared={"mindspore.ops": {"Abs", "hypot"}})
    assert r["mindspore.ops"]["present"] == ["Abs"]
    assert list(r["mindspore.ops"]["out"].values()) == [["TensorAdd"]]
    assert r["mindspore.ops"]["missing"] == {"elementwise math": ["hypot"]}  # a plugin's
    assert r["mindspore.ops"]["compared"] == ["Abs"]


def test_compared_names_come_from_the_differential_cases():
    compared = coverage.compared_names()
    assert {"add", "Add", "ReduceSum", "softmax"} <= compared["mindspore.ops"]
    assert {"sum", "exp", "reshape"} <= compared["mindspore.Tensor"]
    assert not {"+", "[int]"} & compared["mindspore.Tensor"]
    assert "Resize" in compared["mindspore.dataset.vision"]


def test_regeneration_keeps_the_hand_written_parts():
    doc = f"# Title\n\nintro\n\n{coverage.BEGIN}\nold\n{coverage.END}\n\n## Known differences\n"
    new = coverage.updated(doc, f"{coverage.BEGIN}\nnew\n{coverage.END}\n")
    assert new == f"# Title\n\nintro\n\n{coverage.BEGIN}\nnew\n{coverage.END}\n\n" \
                  "## Known differences\n"


#: the namespaces of issue 17's goal: what is missing there says why
GOAL = ("mindspore.ops", "mindspore.nn", "mindspore.Tensor", "mindspore.dataset",
        "mindspore.dataset.vision", "mindspore.dataset.transforms", "mindspore.train",
        "mindspore.amp", "mindspore.communication", "mindspore.mint", "mindspore.mint.nn",
        "mindspore.mint.nn.functional", "mindspore.mint.optim")


def test_every_missing_group_of_the_goal_says_why():
    report = coverage.measure(json.loads(coverage.LISTING.read_text()))
    unexplained = [(ns, group) for ns in GOAL for group in report[ns]["missing"]
                   if (ns, group) not in scope.WHY_MISSING]
    assert not unexplained, f"add a reason to WHY_MISSING in tools/api_scope.py: {unexplained}"
