"""The dashboard: its JSON and files over HTTP, the CLI that serves it, and the page in
a real headless Chromium (skipped only where no Chromium is installed); screenshots are
kept in a temporary directory whose path the test prints."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from ms_insight.dashboard import serve_in_thread
from ms_insight.lineage import update_lineage

CHROMIUM = next((p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                             "/usr/bin/chromium", shutil.which("chromium-browser"))
                 if p and os.path.exists(p)), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


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


class _Chromium:
    """Headless Chromium driven over the DevTools protocol (websocket-client): load a
    page, run JavaScript in it, wait for a condition, take screenshots."""

    def __init__(self):
        import websocket

        self.profile = tempfile.mkdtemp(prefix="insight-chromium-")
        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}",
                                      "--remote-debugging-port=0", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            assert time.monotonic() < deadline and self.proc.poll() is None, "no chromium"
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        pages = json.loads(_get(f"http://127.0.0.1:{port}/json/list")[2])
        page = next(p for p in pages if p["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60,
                                              suppress_origin=True)
        self.next_id = 0
        self.send("Emulation.setDeviceMetricsOverride", width=1400, height=1800,
                  deviceScaleFactor=1, mobile=False)

    def send(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                assert "error" not in msg, msg
                return msg["result"]

    def js(self, expression):
        r = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True)
        assert "exceptionDetails" not in r, r
        return r["result"].get("value")

    def wait(self, expression, timeout=90):
        deadline = time.monotonic() + timeout
        while not self.js(expression):
            assert time.monotonic() < deadline, f"timed out waiting for {expression}"
            time.sleep(0.2)

    def goto(self, url):
        self.send("Page.navigate", url=url)
        self.wait("document.readyState === 'complete'")

    def screenshot(self, path):
        import base64

        data = self.send("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            shutil.rmtree(self.profile, ignore_errors=True)


DETAIL_LOADED = ("document.querySelector('#detail') && document.querySelector('#detail')"
                 ".dataset.loaded !== undefined")


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium installed")
    pytest.importorskip("websocket", reason="websocket-client drives Chromium")
    b = _Chromium()
    yield b
    b.close()


@pytest.fixture(scope="module")
def shots():
    return tempfile.mkdtemp(prefix="ms-insight-dashboard-screenshots-")


def test_page_in_chromium_lists_runs_and_shows_an_explanation(url, base, browser, shots,
                                                              capsys):
    browser.goto(url)
    browser.wait(DETAIL_LOADED)
    runs = browser.js("[...document.querySelectorAll('#runs li')].map(li => li.dataset.run)")
    assert runs == ["explain_run", "train_run"]
    header = browser.js("[...document.querySelectorAll('#lineage th')].map(t => t.textContent)")
    assert "hyper_parameters.learning_rate" in header
    ranked = browser.js("[...document.querySelectorAll('#scores tr')].slice(1)"
                        ".map(r => r.cells[1].textContent)")
    doc = json.loads((base / "explain_run" / "explain" / "explain.json").read_text())
    assert ranked == [m for m, _ in doc["ranking"]]
    detail = browser.js("({images: +document.querySelector('#detail').dataset.images, "
                        "loaded: +document.querySelector('#detail').dataset.loaded, "
                        "text: document.querySelector('#detail').textContent})")
    assert detail["images"] >= 1 + len(doc["methods"]) + len(doc["samples"][0]["hoc"]["steps"])
    assert detail["loaded"] == detail["images"]  # every picture decoded
    assert "Hierarchical occlusion" in detail["text"] and "Scores of this sample" in detail["text"]
    browser.screenshot(f"{shots}/overview.png")
    assert os.path.getsize(f"{shots}/overview.png") > 10_000
    with capsys.disabled():
        print(f"\ndashboard screenshots: {shots}")


def test_page_filters_samples_by_label_prediction_and_correctness(url, base, browser, shots):
    doc = json.loads((base / "explain_run" / "explain" / "explain.json").read_text())
    browser.goto(url)
    browser.wait(DETAIL_LOADED)
    label = doc["samples"][0]["label"]

    def choose(select, value):
        browser.js(f"(() => {{ const s = document.getElementById('{select}'); s.value = "
                   f"'{value}'; s.dispatchEvent(new Event('change')); }})()")
        return browser.js("[...document.querySelectorAll('#samples li')].map(li => "
                          "+li.dataset.id)")

    assert choose("f-label", label) == [s["id"] for s in doc["samples"] if s["label"] == label]
    assert choose("f-correct", "correct") == [s["id"] for s in doc["samples"]
                                              if s["label"] == label and s["correct"]]
    wrong_pred = (label + 1) % 4
    assert choose("f-pred", wrong_pred) == [s["id"] for s in doc["samples"] if s["label"] ==
                                            label and s["pred"] == wrong_pred and s["correct"]]
    assert "0 of 8 samples" in browser.js("document.getElementById('count').textContent")
    # a link names the run, the filters and the sample
    last = doc["samples"][-1]
    browser.goto(url + f"#run=explain_run&label={last['label']}&sample={last['id']}")
    browser.wait(DETAIL_LOADED + " && document.querySelector('#samples li.selected')"
                 f"?.dataset.id === '{last['id']}'")
    assert browser.js("document.querySelector('#detail h3').textContent").startswith(
        f"Sample {last['id']}:")
    browser.screenshot(f"{shots}/filtered.png")
