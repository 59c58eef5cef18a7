"""The ``pytest-ocr`` command: the plugin's building blocks without pytest.

    pytest-ocr score REFERENCE HYPOTHESIS [--metric NAME ...] [--normalize PROFILE] [--json]

scores two text files exactly as a case would (same normalisation, same metrics).

    pytest-ocr serve --engine NAME [--config FILE] [--host HOST] [--port PORT] [--workers N]

serves an engine as an HTTP OCR worker (see pytest_ocr/serve.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .metrics.tokens import TokenizerUnavailable
from .metrics import CER_DENOMINATORS, DEFAULT_METRICS, METRICS, PROFILES, Normalization, score
from .results import json_safe


class CliError(Exception):
    pass


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"file not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise CliError(f"{path} is not UTF-8 ({exc.reason} at byte {exc.start})") from None


def cmd_score(args: argparse.Namespace) -> int:
    names = args.metric or list(DEFAULT_METRICS)
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise CliError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(sorted(METRICS))}")
    beyond_text = [n for n in names if METRICS[n].needs not in ("text", "output")]
    if beyond_text:
        raise CliError(f"{', '.join(beyond_text)} need(s) expected fields, a schema or a task, which a case file "
                       f"gives; score compares two texts (its metrics: "
                       f"{', '.join(n for n, m in METRICS.items() if m.needs in ('text', 'output'))})")
    options: dict = {"profile": args.normalize}
    if args.unit:
        options["unit"] = args.unit
    normalization = Normalization.from_dict(options)
    try:
        results = score(_read(args.reference), _read(args.hypothesis), names, normalization, args.cer_denominator)
    except TokenizerUnavailable as exc:
        raise CliError(str(exc)) from None
    if args.json:
        document = {
            name: {"value": r.value, "counts": r.counts, "details": r.details} for name, r in results.items()
        }
        print(json.dumps(json_safe(document), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        width = max(len(n) for n in results)
        print(f"normalisation: {', '.join(normalization.steps()) or 'none'}; unit: {normalization.unit}")
        for name, r in results.items():
            print(f"{name.ljust(width)}  {r.value:.6f}  ({METRICS[name].better} is better)")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from . import serve  # the engines and the HTTP server are not needed for `score`

    try:
        return serve.run(args.engine, Path(args.config) if args.config else None, args.host, args.port, args.workers)
    except serve.SetupError as exc:
        raise CliError(str(exc)) from None


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="pytest-ocr", description="OCR evaluation tools of pytest-ocr")
    main.add_argument("--version", action="version", version=f"pytest-ocr {__version__}")
    commands = main.add_subparsers(dest="command", required=True)

    s = commands.add_parser("score", help="score a hypothesis text file against a reference text file")
    s.add_argument("reference", help="ground truth, a UTF-8 text file")
    s.add_argument("hypothesis", help="OCR output, a UTF-8 text file")
    s.add_argument("--metric", action="append", metavar="NAME",
                   help=f"a metric to compute (repeatable; default: {', '.join(DEFAULT_METRICS)})")
    s.add_argument("--normalize", default="default", choices=sorted(PROFILES), help="normalisation profile")
    s.add_argument("--unit", choices=["codepoint", "grapheme"], help="count characters in this unit")
    s.add_argument("--cer-denominator", default="ref", choices=CER_DENOMINATORS)
    s.add_argument("--json", action="store_true", help="print values, counts and details as JSON")
    s.set_defaults(run=cmd_score)

    v = commands.add_parser("serve", help="serve an engine as an HTTP OCR worker (also OpenAI-compatible)")
    v.add_argument("--engine", required=True, metavar="NAME",
                   help="an engine declared in --config, or a built-in engine type (tesseract, rapidocr, ...)")
    v.add_argument("--config", metavar="FILE", help="a YAML file with an `engines:` block, as the ocr_config file")
    v.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)")
    v.add_argument("--port", type=int, default=8765, help="port to listen on; 0 picks a free one (default: 8765)")
    v.add_argument("--workers", type=int, default=1, metavar="N", help="recognitions run at once (default: 1)")
    v.set_defaults(run=cmd_serve)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except CliError as exc:
        print(f"pytest-ocr {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
