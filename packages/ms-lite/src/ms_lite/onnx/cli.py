"""``microspore convert model.onnx --out mypkg/``: the command line of ``convert``."""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def _shape(text: str) -> tuple[str, tuple[int, ...]]:
    name, sep, dims = text.rpartition(":")
    try:
        if not sep or not name:
            raise ValueError
        return name, tuple(int(d) for d in dims.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--input-shape {text!r}: expected NAME:D0,D1,... (e.g. input:1,3,224,224)") from None


def main(argv=None) -> int:
    """Run the converter; exit status 0 on success, 1 when operators are unsupported (the
    report lists them), 2 for an unreadable file or bad arguments."""
    from ms_lite.onnx.convert import convert
    from ms_lite.onnx.importer import OnnxFileError, UnsupportedOnnxError

    parser = argparse.ArgumentParser(
        prog="microspore convert",
        description="Convert an ONNX model into a microspore network: model.py (a Cell), "
                    "model.safetensors and report.txt in the output directory.")
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("--out", required=True, help="output directory (created)")
    parser.add_argument("--input-shape", action="append", type=_shape, default=[],
                        metavar="NAME:D0,D1,...",
                        help="fix an input's shape (symbolic dimensions default to 1)")
    parser.add_argument("--class-name", default="Model", help="the Cell's class name")
    args = parser.parse_args(argv)
    try:
        result = convert(args.model, args.out, dict(args.input_shape), args.class_name)
    except UnsupportedOnnxError as e:
        print(f"error: {e}\nsee {args.out}/report.txt", file=sys.stderr)
        return 1
    except (OnnxFileError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}/model.py, model.safetensors, report.txt "
          f"({len(result.graph.nodes)} operators from {len(result.nodes)} ONNX nodes)")
    for note in result.notes:
        print(f"note: {note}")
    return 0
