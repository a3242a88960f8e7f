"""``microspore ascend``: ``check``, ``doctor`` and ``rank-table`` (see each module)."""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="microspore ascend", description="Ascend tools "
                                "(microspore runs Ascend numerics as an emulation; no "
                                "hardware is used by these commands)")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="run a script on the CPU and report what Ascend lacks")
    c.add_argument("script")
    c.add_argument("args", nargs=argparse.REMAINDER,
                   help="the script's arguments (options of check go before the script)")
    c.add_argument("--chip", default="910B", help="910A, 910B, 910B4, 310P or 310")
    c.add_argument("--seconds", type=float, default=120.0,
                   help="stop the script after this long (default 120)")
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    sub.add_parser("doctor", help="check CANN, devices and the rank environment")
    r = sub.add_parser("rank-table", help="write a rank table (hccl_tools' JSON)")
    r.add_argument("--server-ip", help="this server's IP (server_id)")
    r.add_argument("--devices", default="0-7", help="device ids, e.g. 0-7 or 0,1")
    r.add_argument("--hccn-conf", default=None,
                   help="read device IPs from this hccn.conf (default /etc/hccn.conf)")
    r.add_argument("--device-ip", action="append", default=[], metavar="ID=IP",
                   help="a device's IP (repeatable), instead of hccn.conf")
    r.add_argument("--merge", nargs="+", metavar="TABLE",
                   help="merge these servers' tables into one")
    r.add_argument("-o", "--output", help="file to write (default: stdout)")
    return p


def main(argv) -> int:
    args = _parser().parse_args(argv)
    if args.command == "check":
        from ms_device_ascend.check import check_script, format_report

        report = check_script(args.script, args.args, chip=args.chip, seconds=args.seconds)
        print(json.dumps(report.to_json(), indent=1) if args.json
              else format_report(report, args.script))
        return 1 if report.errors else 2 if report.failed else 0
    if args.command == "doctor":
        from ms_device_ascend.doctor import ERROR, doctor, format_checks

        checks = doctor()
        print(format_checks(checks))
        return 1 if any(c.level == ERROR for c in checks) else 0
    return _rank_table(args)


def _rank_table(args) -> int:
    from ms_device_ascend import rank_table as rt

    try:
        if args.merge:
            tables = [json.load(open(p, encoding="utf-8")) for p in args.merge]
            table = rt.merge(tables)
        else:
            if not args.server_ip:
                raise ValueError("rank-table: --server-ip is required (or --merge)")
            ips = {}
            for item in args.device_ip:
                dev, _, ip = item.partition("=")
                ips[int(dev)] = ip
            if not ips:
                ips = rt.read_hccn_conf(args.hccn_conf or "/etc/hccn.conf")
            table = rt.make_rank_table(args.server_ip, ips, rt.parse_devices(args.devices))
    except (ValueError, OSError) as e:
        print(f"microspore ascend rank-table: {e}", file=sys.stderr)
        return 2
    text = json.dumps(table, indent=4)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0
