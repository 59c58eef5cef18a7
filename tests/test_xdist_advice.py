"""A run under pytest-xdist with fewer OCR items per worker than its engines' break-even
(benchmarks/bench_xdist_breakeven.py) says, in one line, that a serial run (or fewer
workers) is likely faster; real pytest-xdist workers and real Tesseract on real scans."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest
from conftest import DATA, requires_tesseract

from pytest_ocr.report.workers import BREAK_EVEN, advice
from pytest_ocr.run.record import RunRecord

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

LINES = sorted((DATA / "lines").glob("*.png")) + sorted((DATA / "lines").glob("*.jpg"))
OPTIONS = ("-p", "no:cacheprovider", "--ocr-no-cache")


def project(pytester: pytest.Pytester, items: int) -> None:
    """``items`` Tesseract cases on the example suite's text lines, each its own copy."""
    pytester.makeini("[pytest]\n")
    cases = []
    for i in range(items):
        line = LINES[i % len(LINES)]
        shutil.copy(line, pytester.path / f"{i:02d}{line.suffix}")
        cases.append({"id": f"line-{i:02d}", "image": f"{i:02d}{line.suffix}", "expected": {"text": "x"}})
    pytester.makefile(".ocr.yaml", lines=json.dumps({"defaults": {"engine": "tesseract"}, "cases": cases}))


def said(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("note: pytest-xdist:")]


@requires_tesseract
def test_few_items_per_worker_suggest_a_serial_run(pytester, monkeypatch):
    items = BREAK_EVEN["tesseract"]  # on 2 workers: below the break-even
    project(pytester, items)
    expected = (
        f"note: pytest-xdist: {items} OCR items on 2 workers is {items / 2:.1f} per worker, below the "
        f"{BREAK_EVEN['tesseract']} from which -n 2 beat a serial run with tesseract "
        "(benchmarks/bench_xdist_breakeven.py): starting the workers likely cost more than they saved; "
        "-n 0 (a serial run) is likely faster"
    )
    two = pytester.runpytest_subprocess(*OPTIONS, "-n", "2")
    two.assert_outcomes(passed=items)
    assert said(two) == [expected]
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")  # what -n auto finds, on any machine
    auto = pytester.runpytest_subprocess(*OPTIONS, "-n", "auto")
    auto.assert_outcomes(passed=items)
    assert said(auto) == [expected]
    assert said(pytester.runpytest_subprocess(*OPTIONS, "-n", "auto", "-qq")) == []  # -qq: the summary is hidden

    serial = pytester.runpytest_subprocess(*OPTIONS)
    serial.assert_outcomes(passed=items)
    assert said(serial) == []
    # with other tests in the run, pytest-ocr cannot tell what the workers are worth to them
    pytester.makepyfile(test_other="def test_other():\n    assert 1 + 1 == 2\n")
    mixed = pytester.runpytest_subprocess(*OPTIONS, "-n", "2")
    mixed.assert_outcomes(passed=items + 1)
    assert said(mixed) == []


@requires_tesseract
def test_enough_items_per_worker_say_nothing_and_more_workers_than_pay_are_named(pytester):
    items = 2 * BREAK_EVEN["tesseract"]
    project(pytester, items)
    result = pytester.runpytest_subprocess(*OPTIONS, "-n", "2", "--ocr-report=r.json")
    result.assert_outcomes(passed=items)
    assert said(result) == []
    # the same run on more workers than its items pay for: the line names the -n that would
    record = RunRecord.from_document(json.loads((pytester.path / "r.json").read_text()))
    assert record.run.workers == 2 and advice(record, items) is None
    four = replace(record, run=replace(record.run, workers=4))
    line = advice(four, items)
    assert line is not None
    assert line.startswith(f"pytest-xdist: {items} OCR items on 4 workers is {items / 4:.1f} per worker, below the ")
    assert line.endswith("; -n 2 is likely faster")
    assert advice(four, items + 1) is None  # a test besides the OCR items
    unmeasured = replace(four, engines={"tesseract": {**record.engines["tesseract"], "type": "command"}})
    assert advice(unmeasured, items) is None  # an engine type the benchmark did not measure
    # RapidOCR pays later: the same items on 2 workers are too few for it
    rapid = replace(record, engines={"tesseract": {**record.engines["tesseract"], "type": "rapidocr"}})
    line = advice(rapid, items)
    assert items / 2 < BREAK_EVEN["rapidocr"] and line is not None
    assert f"below the {BREAK_EVEN['rapidocr']} from which -n 2 beat a serial run with rapidocr" in line
