"""olmOCR-Bench as pytest: its published sample run as a dataset suite, every fact's
verdict and the benchmark's score against olmOCR-Bench's own code (tests/oracles), and
Tesseract on the rasterised pages beside the stored outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO, load_report, requires_tesseract, run

from pytest_ocr.browser.chromium import find_browser

pytestmark = pytest.mark.slow

SAMPLE = REPO / "tests" / "data" / "olmocr-bench-sample"
CHROMIUM = find_browser()


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> dict:
    """olmOCR-Bench's verdicts on its stored olmOCR outputs, from its own code."""
    home = tmp_path_factory.mktemp("olmocr-home")
    out = home / "oracle.json"
    script = REPO / "tests" / "oracles" / "olmocr_bench.py"
    subprocess.run(
        [sys.executable, str(script), str(SAMPLE), "olmocr_pipeline", CHROMIUM, str(out)],
        env={**os.environ, "HOME": str(home)},
        check=True,
        capture_output=True,
        timeout=600,
    )
    return json.loads(out.read_text(encoding="utf-8"))


def _bench(suite, extra: str = "") -> None:
    suite.write("bench.ocr.yaml", f"dataset: {{type: olmocr-bench, path: {json.dumps(str(SAMPLE))}}}\n{extra}")


def test_every_fact_and_the_score_agree_with_olmocr_bench(suite, oracle):
    _bench(suite)
    result = run(suite, "--ocr-report", "report.json")
    assert result.ret == 1  # pages whose facts do not all hold fail, as items
    report = load_report(suite)
    results = report["results"]
    assert {r["engine"] for r in results} == {"olmocr_pipeline"}
    assert all(r["outcome"] in ("passed", "failed") for r in results), [r["error"] for r in results]
    ours = {f["id"]: f for r in results for f in r["facts"]}
    assert ours.keys() == oracle["verdicts"].keys()
    assert len(ours) == 120  # 99 + 1 blank-page fact, and the 20 baseline facts olmOCR-Bench adds
    differ = {i: (ours[i], oracle["verdicts"][i]) for i in ours if ours[i]["passed"] != oracle["verdicts"][i]["passed"]}
    assert not differ
    by_type: dict[str, list[int]] = {}
    for fact in ours.values():
        counts = by_type.setdefault(fact["type"], [0, 0])
        counts[0] += fact["passed"]
        counts[1] += 1
    # Known numbers, so that a change in either implementation shows (olmOCR-Bench 0.4.27's).
    assert by_type == {
        "absent": [23, 24],
        "baseline": [20, 21],
        "math": [11, 12],
        "order": [12, 13],
        "present": [24, 30],
        "table": [17, 20],
    }
    facts = report["summary"]["olmocr_pipeline"]["facts"]
    assert facts["categories"] == {name.removesuffix(".jsonl"): counts for name, counts in oracle["categories"].items()}
    assert facts["score"] == pytest.approx(oracle["score"], abs=1e-12)
    low, high = facts["ci95"]
    assert low < facts["score"] < high
    # Each page's failure names the facts that do not hold, with olmOCR-Bench's reasons.
    failed = next(r for r in results if r["case"] == "earnings_pg1")
    assert failed["outcome"] == "failed"
    assert failed["thresholds"] == {"checks_passed": ">= 1"}
    assert failed["metrics"]["checks_passed"] == pytest.approx(
        sum(f["passed"] for f in failed["facts"]) / len(failed["facts"])
    )
    text = result.stdout.str()
    assert "checks score" in text and "category dataset" in text and "type table" in text


def test_stored_outputs_and_tesseract_side_by_side(suite):
    requires_tesseract()
    _bench(
        suite,
        "engines:\n  tesseract: {type: tesseract}\n"
        "defaults:\n  engine: [olmocr_pipeline, tesseract]\n  thresholds: {checks_passed: null}\n",
    )
    result = run(suite, "--ocr-report", "report.json", "-k", "small_page_size or multi_column_miss")
    assert result.ret == 0, result.stdout.str()
    report = load_report(suite)
    engines = {r["engine"] for r in report["results"]}
    assert engines == {"olmocr_pipeline", "tesseract"}
    for r in report["results"]:
        assert r["page"] == 1 and r["facts"], r
    tesseract = [r for r in report["results"] if r["engine"] == "tesseract"]
    # Tesseract read the rasterised pages: the plain-text facts of the two-column article hold.
    column = next(r for r in tesseract if r["case"] == "multi_column_miss_pg1")
    verdicts = {f["id"]: f for f in column["facts"]}
    assert verdicts["multi_column_miss_00"]["passed"]  # the title
    assert verdicts["multi_column_miss_10"]["passed"]  # the columns in reading order
    # The page's "Downloaded from" line is on the scan: Tesseract reads the furniture the
    # benchmark wants left out, and the absent fact says so.
    header = verdicts["multi_column_miss_04"]
    assert not header["passed"] and "found" in header["reason"]
    assert set(report["summary"]) == {"olmocr_pipeline", "tesseract"}
