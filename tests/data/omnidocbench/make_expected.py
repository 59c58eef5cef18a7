"""Reproduce expected/<system>/ with OmniDocBench's own end-to-end evaluation (not run by the tests).

    python make_expected.py --odb /path/to/OmniDocBench --python /work/venv-odbref/bin/python

--odb is a checkout of pichiu/OmniDocBench at 7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d (Apache-2.0);
--python has its requirements (pylatexenc==3.0a30) and latexmlc on PATH (Debian package latexml).
For each system folder (olmocr, handmade, latex_tables) it writes configs/end2end.yaml with only the two
data paths changed (quick_match; CDM_plain only dumps the formula pairs CDM would score, *_formula.json),
runs pdf_validation.py in a scratch directory (OmniDocBench writes ./result and ./temp relative to the
working directory; the checkout is never written into) and copies result/*.json and the config into
expected/<system>/. The run fails if any page's mixed match (the call OmniDocBench bounds with
func_timeout(30, ...)) takes more than MAX_MATCH_SECONDS, so that no expected value comes from the
time-dependent fallback.
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SYSTEMS = ("olmocr", "handmade", "latex_tables")
COMMIT = "7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d"
MAX_MATCH_SECONDS = 5.0

CONFIG = """end2end_eval:
  metrics:
    text_block:
      metric:
        - Edit_dist
    display_formula:
      metric:
        - Edit_dist
        - CDM_plain
    table:
      metric:
        - TEDS
        - Edit_dist
    reading_order:
      metric:
        - Edit_dist
  dataset:
    dataset_name: end2end_dataset
    ground_truth:
      data_path: {gt}
    prediction:
      data_path: {pred}
    match_method: quick_match
"""

# Runs inside OmniDocBench's environment: times each page's mixed match through the func_timeout call
# that End2EndDataset makes, then runs pdf_validation.py as its command line would.
DRIVER = """
import json, runpy, sys, time
odb, config, max_seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
sys.path.insert(0, odb)
import dataset.end2end_dataset as e2e
original = e2e.func_timeout
seconds = {}
def timed(timeout, func, args=(), kwargs=None):
    start = time.perf_counter()
    try:
        return original(timeout, func, args=args, kwargs=kwargs)
    finally:
        seconds[args[3]] = time.perf_counter() - start
e2e.func_timeout = timed
sys.argv = [odb + '/pdf_validation.py', '--config', config]
runpy.run_path(odb + '/pdf_validation.py', run_name='__main__')
slowest = max(seconds.items(), key=lambda kv: kv[1])
print(f'mixed match: {len(seconds)} pages, slowest {slowest[0]} {slowest[1]:.3f} s')
if slowest[1] > max_seconds:
    sys.exit(f'{slowest[0]} took {slowest[1]:.1f} s to match: too close to the 30 s timeout')
"""


def run(odb: Path, python: str, system: str) -> None:
    with tempfile.TemporaryDirectory(prefix=f"odb-{system}-") as scratch:
        work = Path(scratch)
        config = work / "end2end.yaml"
        config.write_text(CONFIG.format(gt=HERE / "pages.json", pred=HERE / system), encoding="utf-8")
        (work / "driver.py").write_text(DRIVER, encoding="utf-8")
        (work / "result").mkdir()  # Edit_dist writes its per-page file before anything creates the folder
        subprocess.run([python, "driver.py", str(odb), str(config), str(MAX_MATCH_SECONDS)], cwd=work, check=True)
        out = HERE / "expected" / system
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for result in sorted((work / "result").glob("*.json")):
            shutil.copyfile(result, out / result.name)
        (out / "end2end.yaml").write_text(
            CONFIG.format(gt="tests/data/omnidocbench/pages.json", pred=f"tests/data/omnidocbench/{system}"),
            encoding="utf-8",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--odb", type=Path, required=True, help=f"OmniDocBench checkout at {COMMIT}")
    parser.add_argument("--python", default=sys.executable, help="the Python with OmniDocBench's requirements")
    parser.add_argument("systems", nargs="*", default=SYSTEMS)
    args = parser.parse_args()
    head = subprocess.run(["git", "-C", str(args.odb), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.stdout.strip() != COMMIT:
        sys.exit(f"{args.odb} is at {head.stdout.strip() or '?'}, expected {COMMIT}")
    for system in args.systems:
        run(args.odb.resolve(), args.python, system)
        print(json.dumps({"system": system, "files": sorted(p.name for p in (HERE / "expected" / system).iterdir())}))


if __name__ == "__main__":
    main()
