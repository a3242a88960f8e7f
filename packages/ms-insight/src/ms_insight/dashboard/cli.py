"""``microspore insight start --summary-base-dir DIR --port 8080``: MindInsight's
``mindinsight start``, serving the dashboard until interrupted."""

from __future__ import annotations

import argparse
import sys

from ms_insight.dashboard.server import make_server

__all__ = ["main"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="microspore insight start",
        description="Serve the dashboard: runs, lineage and explanations under a directory.")
    parser.add_argument("--summary-base-dir", default=".",
                        help="directory whose runs are shown (default: .)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1, this machine only)")
    args = parser.parse_args(argv)
    try:
        server = make_server(args.summary_base_dir, args.host, args.port)
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 2
    except OSError as e:
        print(f"insight start: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    print(f"insight dashboard on http://{host}:{port}/ (runs under {args.summary_base_dir}); "
          "Ctrl-C stops it", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
