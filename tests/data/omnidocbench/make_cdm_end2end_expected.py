"""Make cdm_end2end_expected.json: OmniDocBench's own end-to-end evaluation of the oracle systems with CDM, and the
Overall score its tools/generate_result_tables.ipynb computes from the result (not run by the tests).

The source: OmniDocBench v1.5's code, the snapshot pichiu/OmniDocBench at commit
7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d (Apache-2.0). For each system it runs pdf_validation.py as
make_expected.py does, on make_expected.py's config with `CDM` added to display_formula's metrics (the config
OmniDocBench's comment describes: "CDM can be calculated directly by calling CDM in config file"), then runs the
notebook's first two cells on the run's *_metric_result.json, and keeps: every display-formula sample's CDM, the
display formulas' results (`all`, the page split and the block-attribute groups, CDM beside Edit_dist), TEDS's
page split, the text ALL_page_avg and the notebook's table row (the Overall).

Two environments, as OmniDocBench needs them (its end-to-end code runs on today's numpy and scikit-image, its CDM
only on scikit-image 0.20, with which every CDM of more than 3 matched tokens scores 0 otherwise):
  * --python: the end-to-end evaluation's (pylatexenc==3.0a30, pandas, Levenshtein...: /work/venv-odbref);
  * --cdm-python: CDM's (numpy 1.24.4, scipy 1.10.1, scikit-image 0.20.0, pillow: /work/venv-cdmref).
The evaluation runs in --python; cal_metric.py's `CDM` class is replaced by one whose `evaluate` runs
OmniDocBench's own CDM.evaluate in --cdm-python (one process per formula pair, same arguments, same working
directory), and its process pool by one thread (max_workers 1), so no xelatex run can reach CDM's 30 s timeout
on a loaded machine. Nothing else changes.

The toolchain and the two things Debian lacks (ImageMagick 7's `magick`, PDF reading) as make_cdm_expected.py
describes; run inside its mount namespace:

    python make_cdm_expected.py --setup DIR       # the magick shim and the PDF policy
    unshare -m sh -c 'mount --bind DIR/policy.xml /etc/ImageMagick-6/policy.xml && PATH=DIR/bin:$PATH \\
        python make_cdm_end2end_expected.py --odb CHECKOUT --python /work/venv-odbref/bin/python \\
        --cdm-python /work/venv-cdmref/bin/python'
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from make_expected import COMMIT, CONFIG, HERE, SYSTEMS

CONFIG_CDM = CONFIG.replace("        - CDM_plain\n", "        - CDM\n")

# Runs in --cdm-python: OmniDocBench's CDM.evaluate on one pair (stdin: [gt, pred]), its result the last line.
HELPER = """
import json, sys, types
odb, output_root, img_id = sys.argv[1:4]
sys.path.insert(0, odb)
package = types.ModuleType("metrics")
package.__path__ = [odb + "/metrics"]
sys.modules["metrics"] = package
from metrics.cdm_metric import CDM
gt, pred = json.loads(sys.stdin.read())
result = CDM(output_root=output_root).evaluate(gt, pred, img_id)
print(json.dumps({key: float(value) for key, value in result.items()}))
"""

# Runs in --python: pdf_validation.py with CDM.evaluate in --cdm-python, then the notebook's cells.
DRIVER = """
import json, runpy, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
odb, config, cdm_python, helper, notebook_out = sys.argv[1:6]
sys.path.insert(0, odb)
import metrics.cal_metric as cal_metric

class RemoteCDM:
    def __init__(self, output_root):
        self.output_root = output_root

    def evaluate(self, gt_latex, pred_latex, img_id):
        argv = [cdm_python, helper, odb, self.output_root, img_id]
        pair = json.dumps([gt_latex, pred_latex])
        done = subprocess.run(argv, input=pair, capture_output=True, text=True, check=True)
        return json.loads(done.stdout.splitlines()[-1])

cal_metric.CDM = RemoteCDM
cal_metric.ProcessPoolExecutor = ThreadPoolExecutor
defaults = list(cal_metric.call_CDM.evaluate.__defaults__)
defaults[-1] = 1  # max_workers
cal_metric.call_CDM.evaluate.__defaults__ = tuple(defaults)
sys.argv = [odb + '/pdf_validation.py', '--config', config]
runpy.run_path(odb + '/pdf_validation.py', run_name='__main__')

# tools/generate_result_tables.ipynb: its first two cells, reading this run's metric_result.json
import glob, os, shutil
(metric_result,) = glob.glob('result/*_quick_match_metric_result.json')
os.makedirs('notebook', exist_ok=True)
shutil.copyfile(metric_result, 'notebook/end2end_quick_match_metric_result.json')
cells = [c for c in json.load(open(odb + '/tools/generate_result_tables.ipynb'))['cells'] if c['cell_type'] == 'code']
namespace = {}
exec(''.join(cells[0]['source']), namespace)
namespace['result_folder'] = 'notebook'
exec(''.join(cells[1]['source']), namespace)
json.dump(namespace['df'].to_dict(orient='index')['end2end'], open(notebook_out, 'w'))
"""


def run(odb: Path, python: str, cdm_python: str, system: str) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"odb-cdm-{system}-") as scratch:
        work = Path(scratch)
        config = work / "end2end.yaml"
        config.write_text(CONFIG_CDM.format(gt=HERE / "pages.json", pred=HERE / system), encoding="utf-8")
        (work / "driver.py").write_text(DRIVER, encoding="utf-8")
        (work / "helper.py").write_text(HELPER, encoding="utf-8")
        (work / "result").mkdir()
        argv = [python, "driver.py", str(odb), str(config), cdm_python, str(work / "helper.py"), "notebook.json"]
        subprocess.run(argv, cwd=work, check=True)
        result = json.loads((work / "result" / f"{system}_quick_match_metric_result.json").read_text())
        samples = json.loads((work / "result" / f"{system}_quick_match_display_formula_result.json").read_text())
        per_page: dict[str, list[float]] = {}
        for sample in samples:
            per_page.setdefault(sample["img_id"], []).append(sample["metric"]["CDM"])
        return {
            "samples": [
                {
                    "img_id": s["img_id"],
                    "gt_idx": s["gt_idx"],
                    "gt": s["gt"],
                    "pred": s["pred"],
                    "CDM": s["metric"]["CDM"],
                }
                for s in samples
            ],
            # get_page_split's per-page step (the mean of a page's samples), before the mean over pages
            "page_CDM": {page: sum(scores) / len(scores) for page, scores in per_page.items()},
            "display_formula": result["display_formula"],  # all, page and group, each with CDM
            "table_page": result["table"]["page"],
            "text_block_all": result["text_block"]["all"],
            "notebook": json.loads((work / "notebook.json").read_text()),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--odb", type=Path, required=True, help=f"OmniDocBench checkout at {COMMIT}")
    parser.add_argument("--python", required=True, help="the Python with OmniDocBench's requirements")
    parser.add_argument("--cdm-python", required=True, help="the Python with CDM's pins (scikit-image 0.20)")
    parser.add_argument("--out", type=Path, default=HERE / "cdm_end2end_expected.json")
    parser.add_argument("systems", nargs="*", default=SYSTEMS)
    args = parser.parse_args()
    head = subprocess.run(["git", "-C", str(args.odb), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.stdout.strip() != COMMIT:
        sys.exit(f"{args.odb} is at {head.stdout.strip() or '?'}, expected {COMMIT}")
    if shutil.which("magick") is None:
        sys.exit("no `magick` on PATH: run make_cdm_expected.py --setup first")
    systems = {system: run(args.odb.resolve(), args.python, args.cdm_python, system) for system in args.systems}
    document = {
        "source": f"OmniDocBench's end-to-end evaluation with CDM (pdf_validation.py, quick_match) and "
        f"tools/generate_result_tables.ipynb's Overall, pichiu/OmniDocBench@{COMMIT}, run by {Path(__file__).name}",
        "config": CONFIG_CDM.format(gt="tests/data/omnidocbench/pages.json", pred="tests/data/omnidocbench/SYSTEM"),
        "systems": systems,
    }
    args.out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
