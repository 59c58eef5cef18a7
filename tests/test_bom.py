"""One rule for a byte-order mark (issue 14): a text file's leading U+FEFF is an encoding
mark, dropped wherever pytest-ocr reads a file as text; a string given as a string
(``text:``, library calls, engine output) is taken as it is. Checked at every entry point,
each against the same text without the mark."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import load_report, run

from pytest_ocr import metrics

pytestmark = pytest.mark.slow

BOM = "\ufeff"
TEXT = "Gardenia Bakeries (KL) Sdn Bhd"


def test_case_file_ground_truth_and_the_case_file_itself(suite):
    suite.image("a.tif", TEXT)
    suite.write("a.gt.txt", BOM + TEXT)
    suite.write("yaml.ocr.yaml", BOM + "image: a.tif\nexpected: {text_file: a.gt.txt}\nthresholds: {cer: '== 0'}\n")
    case = {"image": "a.tif", "expected": {"text_file": "a.gt.txt"}, "thresholds": {"cer": "== 0"}}
    suite.write("json.ocr.json", BOM + json.dumps(case))
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=2)
    assert [r["reference"] for r in load_report(suite)["results"]] == [TEXT, TEXT]


def test_an_inline_text_keeps_the_character(suite):
    suite.image("a.tif", TEXT)
    suite.write("a.ocr.yaml", 'image: a.tif\nexpected: {text: "\\uFEFFGardenia Bakeries (KL) Sdn Bhd"}\n')
    run(suite, "--ocr-report", "report.json").assert_outcomes(passed=1)
    [record] = load_report(suite)["results"]
    assert record["reference"] == BOM + TEXT and record["metrics"]["cer"] == 1 / len(BOM + TEXT)


def test_dataset_adapters_and_stored_predictions(suite):
    suite.image("img/a.tif", None)
    suite.write("img/a.gt.txt", BOM + TEXT)
    suite.write("labels.txt", BOM + f"img/a.tif\t{TEXT}\n")
    suite.write("preds.csv", BOM + f"image,text\na.tif,{TEXT}\n")
    engines = "engines:\n  stored: {type: predictions, path: preds.csv}\ndefaults: {engine: stored}\n"
    suite.write("pairs.ocr.yaml", engines + "dataset: {type: pairs, path: img}\n")
    suite.write("paddle.ocr.yaml", engines + "dataset: {type: paddle, label_file: labels.txt}\n")
    run(suite, "--ocr-report", "report.json").assert_outcomes(passed=2)
    records = load_report(suite)["results"]
    assert [(r["reference"], r["prediction"], r["metrics"]["cer"]) for r in records] == [(TEXT, TEXT, 0.0)] * 2


def test_score_reads_files_by_the_rule(tmp_path):
    (tmp_path / "gt.txt").write_text(BOM + TEXT, encoding="utf-8")
    (tmp_path / "ocr.txt").write_text(TEXT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "score", "gt.txt", "ocr.txt", "--metric", "cer", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cer"]["value"] == 0.0


def test_the_library_takes_strings_as_they_are():
    assert metrics.cer(BOM + TEXT, TEXT) == 1 / len(BOM + TEXT)
