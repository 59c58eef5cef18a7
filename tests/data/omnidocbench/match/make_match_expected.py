"""Write match_expected.json: OmniDocBench's own mixed match on generated inputs (not run by the tests).

    /work/venv-odbref/bin/python make_match_expected.py --odb /path/to/OmniDocBench [--cases 1000]

--odb is a checkout of pichiu/OmniDocBench at 7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d (Apache-2.0), run with
its requirements. For each seed, tests/helpers/omnidocbench.match_case makes the inputs (our own, random), and
utils/match_quick.py's match_gt2pred_quick and utils/match.py's match_gt2pred_simple (as End2EndDataset calls
them for a page's mixed match, and as its timeout falls back) match them; each output is kept as a SHA-256 of
its JSON (helpers.omnidocbench.digest), or the name of the exception it raised.
tests/test_omnidocbench_match.py compares pytest-ocr's port with every one.
"""

import argparse
import copy
import json
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMIT = "7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--odb", required=True)
    parser.add_argument("--cases", type=int, default=300)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent.parent.parent))  # tests/, for helpers
    sys.path.insert(0, os.path.abspath(args.odb))
    from helpers.omnidocbench import digest, match_case
    from utils.match import match_gt2pred_simple
    from utils.match_quick import match_gt2pred_quick

    cases = []
    for seed in range(args.cases):
        blocks, predictions = match_case(seed)
        case = {"seed": seed}
        for name, match in (
            ("quick", lambda b, p: match_gt2pred_quick(b, p, "text_all", "page.png")),
            ("simple", lambda b, p: match_gt2pred_simple(b, p, "text_all", "page.png")[0]),
        ):
            try:
                case[name] = digest(match(copy.deepcopy(blocks), copy.deepcopy(predictions)))
            except Exception as exc:
                case[name] = f"raises {type(exc).__name__}"
        cases.append(case)
    import pylatexenc

    source = {
        "code": f"pichiu/OmniDocBench at {COMMIT} (Apache-2.0)",
        "python": platform.python_version(),
        "pylatexenc": pylatexenc.__version__,
        "inputs": "tests/helpers/omnidocbench.match_case(seed)",
    }
    out = HERE / "match_expected.json"
    out.write_text(json.dumps({"source": source, "cases": cases}, indent=1) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases written to {out}")


if __name__ == "__main__":
    main()
