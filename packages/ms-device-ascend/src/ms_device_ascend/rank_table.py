"""Rank tables in the JSON format of MindSpore's ``hccl_tools.py`` (version 1.0).

A rank table lists, per server, the Ascend devices of a job with their IPs and rank ids;
HCCL reads it from ``RANK_TABLE_FILE``. ``make_rank_table`` writes one for a server from
its device IPs (``read_hccn_conf`` reads them from ``/etc/hccn.conf``, the file
``hccn_tool`` maintains), ``merge`` joins the tables of several servers renumbering the
ranks, ``validate`` lists what is wrong with a table, and ``load_rank_table`` gives a
launcher (ms-parallel's) one ``Rank`` per process to start: its rank id, server and
device id, exported to that process as ``RANK_ID`` / ``DEVICE_ID``.

>>> t = make_rank_table("10.0.0.1", {0: "192.168.100.101", 1: "192.168.101.101"})
>>> [(d["rank_id"], d["device_id"]) for d in t["server_list"][0]["device"]]
[('0', '0'), ('1', '1')]
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass

__all__ = ["Rank", "make_rank_table", "merge", "validate", "load_rank_table",
           "read_hccn_conf", "parse_devices"]

DEVICES_PER_SERVER = 8  # an Atlas 800 training server


@dataclass(frozen=True)
class Rank:
    rank_id: int
    server_id: str
    device_id: int
    device_ip: str


def parse_devices(text: str) -> list[int]:
    """``"0-7"`` or ``"0,1,4-5"`` -> device ids."""
    out: list[int] = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not m:
            raise ValueError(f"rank table: bad device list {text!r} (e.g. '0-7' or '0,1')")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        out.extend(range(lo, hi + 1))
    if len(set(out)) != len(out) or any(d >= DEVICES_PER_SERVER for d in out):
        raise ValueError(f"rank table: device list {text!r} must name distinct ids 0-"
                         f"{DEVICES_PER_SERVER - 1}")
    return out


def read_hccn_conf(path: str) -> dict[int, str]:
    """Device id -> IP from an ``hccn.conf`` (lines ``address_<id>=<ip>``)."""
    ips = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.fullmatch(r"\s*address_(\d+)\s*=\s*(\S+)\s*", line)
            if m:
                ips[int(m.group(1))] = m.group(2)
    if not ips:
        raise ValueError(f"rank table: {path} has no address_<device>=<ip> lines; set the "
                         "device IPs with hccn_tool first")
    return ips


def make_rank_table(server_id: str, device_ips: dict[int, str], devices=None) -> dict:
    """The table of one server: ``devices`` (default: all in ``device_ips``) in order,
    ranks numbered from 0."""
    devices = sorted(device_ips) if devices is None else list(devices)
    missing = [d for d in devices if d not in device_ips]
    if missing:
        raise ValueError(f"rank table: no IP for device(s) {missing} (known: "
                         f"{sorted(device_ips)}); give them or read /etc/hccn.conf")
    device = [{"device_id": str(d), "device_ip": device_ips[d], "rank_id": str(r)}
              for r, d in enumerate(devices)]
    table = {"version": "1.0", "server_count": "1",
             "server_list": [{"server_id": server_id, "device": device,
                              "host_nic_ip": "reserve"}],
             "status": "completed"}
    _raise_if_invalid(table)
    return table


def merge(tables) -> dict:
    """One table for all servers of ``tables``, ranks renumbered server after server."""
    servers, rank = [], 0
    for t in tables:
        _raise_if_invalid(t)
        for s in t["server_list"]:
            device = []
            for d in s["device"]:
                device.append({**d, "rank_id": str(rank)})
                rank += 1
            servers.append({**s, "device": device})
    table = {"version": "1.0", "server_count": str(len(servers)), "server_list": servers,
             "status": "completed"}
    _raise_if_invalid(table)
    return table


def validate(table) -> list[str]:
    """What is wrong with ``table`` (empty: nothing)."""
    problems = []
    if not isinstance(table, dict):
        return [f"the table must be a JSON object, got {type(table).__name__}"]
    if table.get("version") != "1.0":
        problems.append(f"version must be '1.0' (hccl_tools' format), got "
                        f"{table.get('version')!r}")
    servers = table.get("server_list")
    if not isinstance(servers, list) or not servers:
        return problems + ["server_list must be a non-empty list"]
    if str(table.get("server_count")) != str(len(servers)):
        problems.append(f"server_count is {table.get('server_count')!r} but server_list has "
                        f"{len(servers)} servers")
    ranks = []
    for s in servers:
        sid = s.get("server_id")
        ids = []
        for d in s.get("device") or []:
            try:
                dev, rank = int(d["device_id"]), int(d["rank_id"])
                ipaddress.ip_address(d["device_ip"])
            except (KeyError, ValueError, TypeError) as e:
                problems.append(f"server {sid}: bad device entry {d} ({e})")
                continue
            if not 0 <= dev < DEVICES_PER_SERVER:
                problems.append(f"server {sid}: device_id {dev} is not 0-7")
            ids.append(dev)
            ranks.append(rank)
        if not s.get("device"):
            problems.append(f"server {sid}: no devices")
        if len(set(ids)) != len(ids):
            problems.append(f"server {sid}: a device_id appears twice ({ids})")
    if sorted(ranks) != list(range(len(ranks))):
        problems.append(f"rank_ids must be 0..{len(ranks) - 1}, each once; got "
                        f"{sorted(ranks)}")
    if table.get("status") != "completed":
        problems.append("status must be 'completed'")
    return problems


def _raise_if_invalid(table) -> None:
    problems = validate(table)
    if problems:
        raise ValueError("rank table: " + "; ".join(problems))


def load_rank_table(path: str) -> list[Rank]:
    """The ranks of the table at ``path``, by rank id (a launcher starts one process per
    rank with ``RANK_ID``, ``DEVICE_ID`` and ``RANK_SIZE = len(ranks)``)."""
    try:
        with open(path, encoding="utf-8") as f:
            table = json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError(f"rank table {path}: not JSON ({e})") from None
    problems = validate(table)
    if problems:
        raise ValueError(f"rank table {path}: " + "; ".join(problems))
    ranks = [Rank(int(d["rank_id"]), s["server_id"], int(d["device_id"]), d["device_ip"])
             for s in table["server_list"] for d in s["device"]]
    return sorted(ranks, key=lambda r: r.rank_id)
