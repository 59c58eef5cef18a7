"""Engines that declare ``concurrency = K`` get up to K recognitions in flight per pytest
process, while items still run and report in order. The engine here is a user-defined
engine type (registered from conftest.py, as users do) that sleeps and logs when each
call starts and ends, so the test measures real overlap in real threads."""

from __future__ import annotations

import json

import pytest
from conftest import DATA

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

CONFTEST = """
import json, os, threading, time
from pathlib import Path
from pytest_ocr.engines import EngineError, Recognition

LOG = Path(__file__).parent / "calls.log"
_lock = threading.Lock()

class SlowEngine:
    def __init__(self, spec):
        self.concurrency = spec.options.get("concurrency", 1)
        self.delay = spec.options.get("delay", 0.2)
    def recognize(self, image):
        with _lock, LOG.open("a") as log:
            log.write(json.dumps(["start", os.getpid(), Path(image).stem, time.monotonic()]) + "\\n")
        time.sleep(self.delay)
        with _lock, LOG.open("a") as log:
            log.write(json.dumps(["end", os.getpid(), Path(image).stem, time.monotonic()]) + "\\n")
        if Path(image).stem == "broken":
            raise EngineError("the server said no for broken")
        return Recognition(text=Path(image).with_suffix(".ocr.txt").read_text())
    def fingerprint(self):
        return {"type": "slow", "version": "1", "config": {}}

def pytest_ocr_register_engines(registry):
    registry.register("slow", SlowEngine)
"""


def make_suite(pytester: pytest.Pytester, n: int, concurrency: int, broken: bool = False) -> None:
    pytester.makeconftest(CONFTEST)
    image = (DATA / "pages" / "tess_phototest.tif").read_bytes()
    cases = []
    for i in range(n):
        stem = "broken" if broken and i == 3 else f"img{i:02d}"
        (pytester.path / f"{stem}.tif").write_bytes(image)
        (pytester.path / f"{stem}.ocr.txt").write_text(f"text {i}")
        cases.append(f"  - {{id: c{i:02d}, image: {stem}.tif, expected: {{text: 'text {i}'}}}}")
    pytester.makefile(
        ".ocr.yaml",
        suite=f"""
engines:
  slow: {{type: slow, concurrency: {concurrency}, delay: 0.2}}
defaults:
  engine: slow
  thresholds: {{cer: "== 0"}}
cases:
"""
        + "\n".join(cases)
        + "\n",
    )


def max_in_flight(log_path) -> dict[int, int]:
    """Per process, the most calls that were running at the same time."""
    events = [json.loads(line) for line in log_path.read_text().splitlines()]
    peak: dict[int, int] = {}
    running: dict[int, int] = {}
    for kind, pid, _, _ in sorted(events, key=lambda e: (e[3], e[0] == "start")):
        running[pid] = running.get(pid, 0) + (1 if kind == "start" else -1)
        peak[pid] = max(peak.get(pid, 0), running[pid])
    return peak


def run(pytester, *args):
    return pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--ocr-report", "report.json", *args
    )


def test_up_to_k_recognitions_run_at_once_and_items_report_in_order(pytester):
    make_suite(pytester, n=12, concurrency=4)
    result = run(pytester, "-v")
    result.assert_outcomes(passed=12)
    # items still report in their order
    result.stdout.fnmatch_lines([f"*suite.ocr.yaml::c{i:02d}[[]slow[]] PASSED*" for i in range(12)], consecutive=False)
    assert list(max_in_flight(pytester.path / "calls.log").values()) == [4]
    records = json.loads((pytester.path / "report.json").read_text())["results"]
    assert [r["prediction"] for r in records] == [f"text {i}" for i in range(12)]
    # each item's inference time is its own call's, not the wait for a queue
    assert all(0.19 < r["inference_s"] < 1.0 for r in records)


def test_concurrency_1_calls_one_at_a_time(pytester):
    make_suite(pytester, n=4, concurrency=1)
    run(pytester).assert_outcomes(passed=4)
    assert list(max_in_flight(pytester.path / "calls.log").values()) == [1]


def test_a_failed_prefetched_recognition_is_an_error_on_its_item_only(pytester):
    make_suite(pytester, n=8, concurrency=4, broken=True)
    result = run(pytester)
    result.assert_outcomes(passed=7, errors=1)
    result.stdout.fnmatch_lines(["*c03*the server said no for broken*"])
    records = json.loads((pytester.path / "report.json").read_text())["results"]
    assert [r["outcome"] for r in records].count("error") == 1 and len(records) == 8


def test_each_xdist_worker_keeps_its_own_k_in_flight(pytester):
    make_suite(pytester, n=16, concurrency=3)
    run(pytester, "-n", "2").assert_outcomes(passed=16)
    peaks = max_in_flight(pytester.path / "calls.log")
    assert len(peaks) == 2 and max(peaks.values()) <= 3 and min(peaks.values()) >= 2
    events = [json.loads(line) for line in (pytester.path / "calls.log").read_text().splitlines()]
    assert sorted(e[2] for e in events if e[0] == "start") == [f"img{i:02d}" for i in range(16)]  # each once


def test_exitfirst_stops_without_waiting_for_queued_work(pytester):
    make_suite(pytester, n=12, concurrency=2, broken=True)
    result = run(pytester, "-x")
    result.assert_outcomes(passed=3, errors=1)
    started = [line for line in (pytester.path / "calls.log").read_text().splitlines() if '"start"' in line]
    assert len(started) < 12  # the queue beyond the lookahead was never started
