"""The dashboard: its JSON and files over HTTP, the CLI that serves it, and the page in
a real headless Chromium (skipped only where no Chromium is installed); screenshots are
kept in a temporary directory whose path the test prints."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import pytest

from ms_insight.dashboard import serve_in_thread
from ms_insight.lineage import update_lineage

CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                             "/usr/bin/chromium", shutil.which("chromium-browser"))
                 if p and os.path.exists(p)), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--virtual-time-budget=10000"]


@pytest.fixture(scope="module")
def base(digits_task, tmp_path_factory):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "runner_case", os.path.join(os.path.dirname(__file__), "test_runner.py"))
    runner_case = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner_case)
    root = tmp_path_factory.mktemp("insight")
    runner_case.explain_run(root / "explain_run", digits_task, n=8)
    update_lineage(root / "train_run", {"hyper_parameters": {"epoch": 5, "learning_rate": 0.01},
                                        "network": "LeNet5", "train_dataset": {"size": 1500}})
    return root


@pytest.fixture(scope="module")
def url(base):
    server, url = serve_in_thread(base)
    yield url
    server.shutdown()
    server.server_close()


def _get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.headers["Content-Type"], r.read()


def test_api_lists_runs_lineage_and_explanations(url):
    runs = json.loads(_get(url + "api/runs")[2])
    assert [r["name"] for r in runs] == ["explain_run", "train_run"]
    assert runs[0]["explain"] and not runs[1]["explain"] and runs[0]["event_files"] == 1
    lineage = json.loads(_get(url + "api/lineage")[2])
    assert "hyper_parameters.learning_rate" in lineage["columns"]
    assert {r["run"] for r in lineage["rows"]} == {"explain_run", "train_run"}
    doc = json.loads(_get(url + "api/explain?run=explain_run")[2])
    assert doc["methods"] == ["Gradient", "GuidedBackprop", "GradCAM"]
    status, ctype, png = _get(url + "runs/explain_run/explain/" + doc["samples"][0]["image"])
    assert status == 200 and ctype == "image/png" and png.startswith(b"\x89PNG")
    status, ctype, page = _get(url)
    assert b"<script src=\"/static/app.js\">" in page and "text/html" in ctype
    assert b"http" not in _get(url + "static/app.js")[2].replace(b"http.server", b"")


@pytest.mark.parametrize("path", ["runs/../../etc/passwd", "runs/explain_run/explain/../../x.png",
                                  "static/../server.py", "api/explain?run=train_run", "nope"])
def test_bad_paths_are_404(url, path):
    with pytest.raises(urllib.error.HTTPError) as e:
        _get(url + path)
    assert e.value.code == 404


# ``microspore insight ...`` without the meta-package (this package's tests run alone);
# integration_tests/xai runs the real ``microspore`` command.
INSIGHT = [sys.executable, "-c", "import sys; from ms_insight.cli import main; "
           "sys.exit(main(sys.argv[1:]))"]


def test_cli_serves_the_directory(base):
    proc = subprocess.Popen([*INSIGHT, "start", "--summary-base-dir", str(base), "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("insight dashboard on http://127.0.0.1:"), line
        served = line.split()[3]
        assert [r["name"] for r in json.loads(_get(served + "api/runs")[2])][0] == "explain_run"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    missing = subprocess.run([*INSIGHT, "start", "--summary-base-dir", str(base / "nope")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "is not a directory" in missing.stderr


def _chromium(url, *args):
    profile = tempfile.mkdtemp(prefix="insight-chromium-")
    try:
        out = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, url],
                             capture_output=True, text=True, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.fixture(scope="module")
def shots():
    d = tempfile.mkdtemp(prefix="ms-insight-dashboard-screenshots-")
    return d


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")
def test_page_in_chromium_lists_runs_and_shows_an_explanation(url, base, shots, capsys):
    dom = _chromium(url, "--dump-dom")
    assert 'data-run="explain_run"' in dom and 'data-run="train_run"' in dom
    assert "hyper_parameters.learning_rate" in dom  # the lineage table
    assert '<table id="scores"><tr><th>rank</th>' in dom and "GuidedBackprop" in dom
    doc = json.loads((base / "explain_run" / "explain" / "explain.json").read_text())
    detail = dom[dom.index('<section id="detail"'):]
    shown = detail.count("<img ")
    assert shown >= 1 + len(doc["methods"]), detail[:500]
    assert f'data-images="{shown}" data-loaded="{shown}"' in detail  # every picture decoded
    assert "Hierarchical occlusion" in detail and "Scores of this sample" in detail
    _chromium(url, "--window-size=1400,1800", f"--screenshot={shots}/overview.png")
    assert os.path.getsize(f"{shots}/overview.png") > 10_000
    with capsys.disabled():
        print(f"\ndashboard screenshots: {shots}")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")
def test_page_filters_samples_by_label_prediction_and_correctness(url, base, shots):
    doc = json.loads((base / "explain_run" / "explain" / "explain.json").read_text())
    label = doc["samples"][0]["label"]
    dom = _chromium(url + f"#run=explain_run&label={label}&correct=correct", "--dump-dom")
    listed = dom[dom.index('<ul id="samples">'):dom.index("</ul>", dom.index('<ul id="samples">'))]
    expected = [s["id"] for s in doc["samples"] if s["label"] == label and s["correct"]]
    assert listed.count("<li") == len(expected) and expected
    for sid in expected:
        assert f'data-id="{sid}"' in listed
    assert f"{len(expected)} of {len(doc['samples'])} samples" in dom
    none = _chromium(url + f"#run=explain_run&label={label}&pred={(label + 1) % 4}"
                     "&correct=correct", "--dump-dom")
    assert "0 of 8 samples" in none
    _chromium(url + f"#run=explain_run&label={label}", "--window-size=1400,1800",
              f"--screenshot={shots}/filtered.png")
