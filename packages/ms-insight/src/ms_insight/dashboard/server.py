"""The dashboard's HTTP server: stdlib ``http.server``, the page's static files from this
package, JSON from ``data``. No CDN, nothing fetched from the network: it works offline.

Routes: ``/`` (the page), ``/static/<file>``, ``/api/runs``, ``/api/lineage``,
``/api/explain?run=NAME``, ``/runs/NAME/explain/<png>``.
"""

from __future__ import annotations

import json
import mimetypes
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, unquote, urlparse

from ms_insight.dashboard import data

__all__ = ["make_server", "serve_in_thread"]

_STATIC = ("index.html", "app.js", "style.css")


class _Handler(BaseHTTPRequestHandler):
    base_dir = "."
    server_version = "microspore-insight"

    def log_message(self, format, *args):  # quiet: the CLI prints its own line
        pass

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, value, status: int = 200) -> None:
        self._send(status, json.dumps(value).encode(), "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json({"error": message}, status)

    def do_GET(self):  # noqa: N802 (http.server's name)
        url = urlparse(self.path)
        path = unquote(url.path)
        try:
            if path in ("/", "/index.html"):
                return self._static("index.html")
            if path.startswith("/static/"):
                return self._static(path[len("/static/"):])
            if path == "/api/runs":
                return self._json(data.list_runs(self.base_dir))
            if path == "/api/lineage":
                return self._json(data.lineage_rows(self.base_dir))
            if path == "/api/explain":
                name = parse_qs(url.query).get("run", [""])[0]
                doc = data.explanation(self.base_dir, name)
                if doc is None:
                    return self._error(404, f"run {name!r} has no explanation")
                return self._json(doc)
            if path.startswith("/runs/"):
                return self._run_file(path[len("/runs/"):])
            return self._error(404, f"no such page: {path}")
        except (OSError, ValueError) as e:
            return self._error(500, f"{type(e).__name__}: {e}")

    def _static(self, name: str) -> None:
        if name not in _STATIC:
            return self._error(404, f"no static file {name!r}")
        body = resources.files("ms_insight.dashboard").joinpath("static", name).read_bytes()
        ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        self._send(200, body, ctype + ("; charset=utf-8" if ctype.startswith("text") or
                                       ctype.endswith("javascript") else ""))

    def _run_file(self, rest: str) -> None:
        run, sep, file = rest.partition("/explain/")
        target = data.run_path(self.base_dir, run, "explain", file) if sep else None
        if target is None or not target.endswith(".png") or not os.path.isfile(target):
            return self._error(404, f"no such file: {rest}")
        with open(target, "rb") as f:
            self._send(200, f.read(), "image/png")


def make_server(base_dir, host: str = "127.0.0.1", port: int = 8080) -> ThreadingHTTPServer:
    """A server for ``base_dir`` (port 0 picks a free one; ``server.server_address``)."""
    base = os.fspath(base_dir)
    if not os.path.isdir(base):
        raise FileNotFoundError(f"insight start: --summary-base-dir {base!r} is not a directory")
    handler = type("Handler", (_Handler,), {"base_dir": base})
    return ThreadingHTTPServer((host, port), handler)


def serve_in_thread(base_dir, host: str = "127.0.0.1", port: int = 0):
    """``(server, url)`` with the server running in a daemon thread; ``server.shutdown()``
    stops it. For tests and notebooks."""
    server = make_server(base_dir, host, port)
    threading.Thread(target=server.serve_forever, daemon=True, name="insight-dashboard").start()
    h, p = server.server_address[:2]
    return server, f"http://{h}:{p}/"
