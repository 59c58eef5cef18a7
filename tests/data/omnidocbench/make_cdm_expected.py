"""Make cdm_expected.json: OmniDocBench's own CDM on the formula pairs of cdm_pairs.json.

Not run by the tests (they cannot reach OmniDocBench). The source: OmniDocBench v1.5's code, the snapshot
pichiu/OmniDocBench at commit 7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d (Apache-2.0), metrics/cdm_metric.py and
metrics/cdm/, called exactly as metrics/cal_metric.py's _process_single_cdm_sample calls it (that function's own
text is compiled from cal_metric.py, so the $-stripping and ```latex splitting are the original's).

The toolchain it needs (Debian bookworm):
    apt-get install -y --no-install-recommends texlive-xetex texlive-lang-chinese texlive-lang-cjk \
        imagemagick ghostscript nodejs
and a Python with numpy 1.24.4, scipy 1.10.1, scikit-image 0.20.0, pillow 10.4.0 (OmniDocBench's pins). Two
things Debian's packages lack, supplied without touching the system:
  * OmniDocBench calls ImageMagick 7's `magick`; Debian ships ImageMagick 6's `convert`. A private directory
    first on PATH holds `magick`, a two-line script running /usr/bin/convert-im6.q16 with the same arguments.
  * Debian's /etc/ImageMagick-6/policy.xml forbids reading PDF, and ImageMagick 6 lets no user policy relax
    it. Run this script in a private mount namespace with a copy of the policy that allows PDF reads:

    unshare -m sh -c 'mount --bind POLICY /etc/ImageMagick-6/policy.xml && \
        PATH=SHIMDIR:$PATH python tests/data/omnidocbench/make_cdm_expected.py --odb CHECKOUT --work DIR'

    (--setup DIR writes SHIMDIR=DIR/bin and POLICY=DIR/policy.xml and prints that command line.)
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import types
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMIT = "7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d"


def setup(directory: Path) -> None:
    (directory / "bin").mkdir(parents=True, exist_ok=True)
    shim = directory / "bin" / "magick"
    shim.write_text('#!/bin/sh\nexec /usr/bin/convert-im6.q16 "$@"\n')
    shim.chmod(0o755)
    policy = Path("/etc/ImageMagick-6/policy.xml").read_text()
    denied = '<policy domain="coder" rights="none" pattern="PDF" />'
    (directory / "policy.xml").write_text(
        policy.replace(denied, '<policy domain="coder" rights="read" pattern="PDF" />')
    )
    print(
        f"unshare -m sh -c 'mount --bind {directory}/policy.xml /etc/ImageMagick-6/policy.xml && "
        f"PATH={directory}/bin:$PATH {sys.executable} {Path(__file__).resolve()} --odb CHECKOUT --work DIR'"
    )


def load_reference(odb: Path):
    """OmniDocBench's CDM class and cal_metric's _process_single_cdm_sample, without metrics/__init__.py
    (which imports every metric's dependencies: evaluate, pandas, Levenshtein)."""
    sys.path.insert(0, str(odb))
    package = types.ModuleType("metrics")
    package.__path__ = [str(odb / "metrics")]
    sys.modules["metrics"] = package
    from metrics.cdm_metric import CDM  # type: ignore[import-not-found]

    source = (odb / "metrics" / "cal_metric.py").read_text()
    (function,) = [
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef) and node.name == "_process_single_cdm_sample"
    ]
    namespace = {"copy": copy, "CDM": CDM}
    exec(compile(ast.Module(body=[function], type_ignores=[]), "cal_metric.py", "exec"), namespace)
    return CDM, namespace["_process_single_cdm_sample"]


def first_line(command: list[str]) -> str:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        return "missing"
    return (out.stdout or out.stderr).strip().splitlines()[0]


def environment() -> dict[str, str]:
    return {
        "omnidocbench": f"pichiu/OmniDocBench@{COMMIT}",
        "python": platform.python_version(),
        **{name: metadata.version(name) for name in ("numpy", "scipy", "scikit-image", "pillow")},
        "xelatex": first_line(["xelatex", "--version"]),
        "imagemagick": first_line(["magick", "-version"]),
        "ghostscript": first_line(["gs", "--version"]),
        "node": first_line(["node", "--version"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--setup", type=Path, help="write the magick shim and the PDF policy here, print the command")
    parser.add_argument("--odb", type=Path, help=f"a checkout of pichiu/OmniDocBench at {COMMIT}")
    parser.add_argument("--work", type=Path, help="an empty directory for OmniDocBench's renders")
    parser.add_argument("--pairs", type=Path, default=HERE / "cdm_pairs.json")
    parser.add_argument("--out", type=Path, default=HERE / "cdm_expected.json")
    args = parser.parse_args()
    if args.setup:
        setup(args.setup)
        return
    if shutil.which("magick") is None:
        sys.exit("no `magick` on PATH: run with --setup first")
    CDM, process_single_cdm_sample = load_reference(args.odb)
    results: dict[str, dict] = {}
    original_evaluate = CDM.evaluate

    def evaluate(self, gt_latex, pred_latex, img_id):
        result = original_evaluate(self, gt_latex, pred_latex, img_id)
        results[img_id] = {"gt_stripped": gt_latex, "pred_stripped": pred_latex, **result}
        return result

    CDM.evaluate = evaluate
    pairs = json.loads(args.pairs.read_text())
    args.work = args.work.resolve()
    output_root = str(args.work / "CDM")
    os.makedirs(args.work, exist_ok=True)
    os.chdir(args.work)  # OmniDocBench's temporary files go to relative paths
    rows = []
    for index, pair in enumerate(pairs):
        sample = {"img_id": pair["id"], "gt": pair["gt"], "pred": pair["pred"], "gt_attribute": [{}], "gt_idx": [0]}
        started = time.perf_counter()
        out = process_single_cdm_sample((index, sample, output_root, []))
        seconds = time.perf_counter() - started
        detail = results[str(index)]
        boxes = {}
        for side in ("gt", "pred"):
            path = Path(output_root) / side / "bbox" / f"{index}.jsonl"
            lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else None
            boxes[side] = None if lines is None else sum(1 for line in lines if line["bbox"])
        rows.append(
            {
                "id": pair["id"],
                "F1_score": out["cdm_score"],
                "recall": detail["recall"],
                "precision": detail["precision"],
                "gt_boxes": boxes["gt"],
                "pred_boxes": boxes["pred"],
                "gt_stripped": detail["gt_stripped"],
                "pred_stripped": detail["pred_stripped"],
                "seconds": round(seconds, 2),
            }
        )
        print(f"{pair['id']:32} F1 {out['cdm_score']:<6} {seconds:5.2f} s", flush=True)
    document = {
        "source": f"OmniDocBench's CDM (metrics/cdm_metric.py CDM.evaluate via metrics/cal_metric.py "
        f"_process_single_cdm_sample), pichiu/OmniDocBench@{COMMIT}, run by {Path(__file__).name} on {args.pairs.name}",
        "environment": environment(),
        "results": rows,
    }
    args.out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
