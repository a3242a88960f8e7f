"""The insight dashboard: a local web page (stdlib server, static files in this package)
with the runs, their lineage and their explanations."""

from ms_insight.dashboard.server import make_server, serve_in_thread

__all__ = ["make_server", "serve_in_thread"]
