"""The README's first command, `pytest example_suite`, on the real scans."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest
from conftest import REPO, requires_tesseract

from pytest_ocr.cases.rules import parse
from pytest_ocr.run.stored import report_schema

pytestmark = pytest.mark.slow


@requires_tesseract
def test_example_suite_passes(tmp_path):
    report_path = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "example_suite", "-p", "no:cacheprovider", "--ocr-report", str(report_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "30 passed" in result.stdout
    assert "OCR summary" in result.stdout

    report = json.loads(report_path.read_text(encoding="utf-8"))
    jsonschema.validate(report, report_schema())
    assert len(report["results"]) == 30
    for record in report["results"]:
        assert record["outcome"] == "passed"
        assert record["thresholds"], f"{record['id']} gates on nothing"
        for metric, expression in record["thresholds"].items():
            assert parse(metric, expression).check(record["metrics"][metric])
    assert {r["engine"] for r in report["results"]} >= {"tesseract", "tesseract-fraktur", "tesseract-deu", "rapidocr"}
    # receipts and invoices gate on key fields taken out of both engines' text by regexes
    gated = {(r["case"], r["engine"]) for r in report["results"] if "field_f1" in r["thresholds"]}
    assert len(gated) == 14 and {e for _, e in gated} == {"tesseract", "rapidocr"}
    assert all(r["fields_source"] == "extract" for r in report["results"] if "field_f1" in r["thresholds"])
    assert report["engines"]["tesseract"]["version"].startswith("tesseract 5")
    # the document page: a PDF rasterised for Tesseract, checked by facts, each with its verdict
    (page,) = [r for r in report["results"] if r["case"] == "multi-column-article"]
    assert page["page"] == 1 and page["dpi"] == 300
    verdicts = {f["id"]: f["passed"] for f in page["facts"]}
    assert verdicts == {
        "title": True,
        "claim": True,
        "columns": True,
        "conclusion-after-advocacy": True,
        "not-garbage": True,
        "no-download-line": False,  # Tesseract reads the page furniture too
    }
    # the page scored as OmniDocBench scores it: the stored olmOCR output and Tesseract, and its table
    scored = {r["engine"]: r for r in report["results"] if r["case"] == "earnings"}
    assert set(scored) == {"olmocr", "tesseract-eng"}
    assert all(set(r["thresholds"]) == {"odb_text_edit", "odb_reading_order_edit"} for r in scored.values())
    teds = {engine: r["metrics"]["odb_table_teds"] for engine, r in scored.items()}
    assert teds["olmocr"] > 0.5 and teds["tesseract-eng"] == 0  # Tesseract writes no table
    assert "text edit ALL_page_avg" in result.stdout and "table TEDS all" in result.stdout
    grouped = report["summary"]["olmocr"]["omnidocbench"]
    assert grouped["table"]["group"]["sample_count"] == {label: 1 for label in grouped["table"]["group"]["TEDS"]}
