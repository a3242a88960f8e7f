"""``microspore lite convert``: MindSpore Lite's converter_lite flags.

``microspore lite convert --fmk=MINDIR --modelFile=lenet.mindir --outputFile=lenet
[--fp16=on] [--configFile=quant.cfg]`` writes lenet.ms and lenet.ms.report.txt.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def _convert_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="microspore lite convert",
                                description="Convert a MINDIR or ONNX model to a .ms file.")
    p.add_argument("--fmk", required=True, choices=["MINDIR", "ONNX"], type=str.upper)
    p.add_argument("--modelFile", required=True)
    p.add_argument("--outputFile", required=True)
    p.add_argument("--fp16", choices=["on", "off"], default="off")
    p.add_argument("--configFile", default="")
    p.add_argument("--optimize", choices=["general", "none"], default="general")
    p.add_argument("--report", action="store_true", help="print the conversion report")
    p.add_argument("--ram-budget", default=None,
                   help="with [micro_param] enable_micro=true: fail if the C code's planned "
                        "arena is larger (e.g. 8KB)")
    return p


def convert(argv) -> int:
    from ms_lite.converter.api import Converter

    args = _convert_parser().parse_args(argv)
    c = Converter()
    c.weight_fp16 = args.fp16 == "on"
    c.optimize = args.optimize
    try:
        result = c.convert(args.fmk, args.modelFile, args.outputFile,
                           config_file=args.configFile)
    except (OSError, ValueError, LookupError, TypeError) as e:
        print(f"microspore lite convert: {e}", file=sys.stderr)
        print("CONVERT RESULT FAILED", file=sys.stderr)
        return 1
    if args.report:
        print(result.report.text())
    print(f"wrote {result.path} ({result.size} bytes, {len(result.graph.nodes)} nodes); "
          f"report: {result.path}.report.txt")
    if args.configFile or args.ram_budget:
        from ms_lite.codegen.cli import micro_codegen  # [micro_param]: the C project too

        if micro_codegen(result.graph, args.configFile, args.ram_budget):
            return 1
    print("CONVERT RESULT SUCCESS:0")
    return 0


_COMMANDS = {"convert": convert}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in _COMMANDS:
        print("usage: microspore lite convert --fmk=MINDIR|ONNX --modelFile=PATH "
              "--outputFile=PATH [--fp16=on] [--configFile=PATH]",
              file=sys.stderr if argv and argv[0] not in ("-h", "--help") else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    return _COMMANDS[argv[0]](argv[1:])
