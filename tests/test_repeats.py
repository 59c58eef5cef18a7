"""Repeated recognitions (``repeat:``, ``--ocr-repeat``) against a real HTTP server on
127.0.0.1 whose answers vary from one request to the next, as a sampling vision-language
engine's do: every output recorded, the spread, the share of identical outputs, the CER
between repeats, unstable items marked, each judging policy, the cache bypassed by the
repeats, and repeats in flight together.

The server answers each image by its own count of requests: ``a.png`` gets "hello world",
"hello world", "hallo world", ... (one wrong letter in eleven on every third request),
``b.jpg`` always "hello world". So whatever order requests come in, ``a.png``'s three
repeats are two right outputs and one with CER 1/11.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from xml.etree import ElementTree

import pytest
from conftest import DATA
from engine_helpers.servers import FakeServer

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

RIGHT, WRONG = "hello world", "hallo world"
ONE = 1 / 11  # one substituted letter in eleven


class VaryingServer:
    """An OCR worker whose answer for an image depends on how often it was asked."""

    def __init__(self, sleep_s: float = 0.0) -> None:
        self.counts: Counter[bytes] = Counter()
        self.in_flight = self.peak = 0
        self.lock = threading.Lock()
        self.sleep_s = sleep_s
        self.server = FakeServer(reply=self.reply).start()

    def reply(self, request) -> dict:
        data = request.form()["image"].data
        with self.lock:
            self.counts[data] += 1
            count = self.counts[data]
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        time.sleep(self.sleep_s)
        with self.lock:
            self.in_flight -= 1
        varies = data == (DATA / "lines" / "archiscribe_homerswerke06vossgoog_6390c50e.png").read_bytes()
        return {"text": WRONG if varies and count % 3 == 0 else RIGHT}


@pytest.fixture
def varying():
    started = []

    def start(**kwargs) -> VaryingServer:
        server = VaryingServer(**kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        server.server.stop()


def write_suite(pytester, url: str, engine: dict, defaults: dict) -> None:
    pytester.makeini("[pytest]\nocr_config = ocr-config.yaml\n")
    engines = {"vlm": {"type": "http", "url": url, "timeout": 5, "retries": 0, **engine}}
    pytester.makefile(".yaml", **{"ocr-config": json.dumps({"engines": engines})})
    (pytester.path / "a.png").write_bytes(
        (DATA / "lines" / "archiscribe_homerswerke06vossgoog_6390c50e.png").read_bytes()
    )
    (pytester.path / "b.jpg").write_bytes((DATA / "lines" / "rapidocr_en_rec.jpg").read_bytes())
    suite = {
        "defaults": {"engine": ["vlm"], "thresholds": {"cer": "< 0.05"}, **defaults},
        "cases": [
            {"id": "a", "image": "a.png", "expected": {"text": RIGHT}},
            {"id": "b", "image": "b.jpg", "expected": {"text": RIGHT}},
        ],
    }
    pytester.makefile(".ocr.yaml", suite=json.dumps(suite))


def records(pytester, name: str = "r.json") -> dict:
    return {r["case"]: r for r in json.loads((pytester.path / name).read_text())["results"]}


@pytest.mark.parametrize(
    ("judge", "outcome", "recorded"),
    [("mean", "passed", ONE / 3), ("worst", "failed", ONE), ("all", "failed", ONE / 3)],
)
def test_repeats_record_every_output_their_spread_and_mark_unstable_items(
    pytester, varying, monkeypatch, judge, outcome, recorded
):
    server = varying()
    write_suite(pytester, server.server.ocr_url, {"repeat": 3}, {"repeat_judge": judge})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "step-summary.md"))
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--ocr-report", "r.json", "--junitxml", "junit.xml", "--ocr-html", "r.html"
    )
    result.assert_outcomes(**{outcome: 1, "passed": 2 if outcome == "passed" else 1})
    a, b = records(pytester)["a"], records(pytester)["b"]
    assert sorted(a["repeats"]["outputs"]) == sorted([RIGHT, RIGHT, WRONG]) and b["repeats"]["outputs"] == [RIGHT] * 3
    assert a["repeats"]["n"] == 3 and a["repeats"]["judge"] == judge
    assert a["repeats"]["unstable"] and not b["repeats"]["unstable"]
    assert a["repeats"]["identical"] == pytest.approx(2 / 3) and b["repeats"]["identical"] == 1
    assert a["repeats"]["spread"]["cer"] == pytest.approx({"min": 0, "mean": ONE / 3, "max": ONE})
    # of the three pairs of repeats, the two holding the wrong output differ by one letter in eleven
    assert a["repeats"]["pairwise_cer"] == pytest.approx(2 / 3 * ONE) and b["repeats"]["pairwise_cer"] == 0
    assert sorted(m["cer"] for m in a["repeats"]["metrics"]) == pytest.approx([0, 0, ONE])
    assert a["metrics"]["cer"] == pytest.approx(recorded)
    assert any(w.startswith("unstable: 2 different outputs in 3 repeats") for w in a["warnings"])
    assert not any(w.startswith("unstable") for w in b["warnings"])
    summary = json.loads((pytester.path / "r.json").read_text())["summary"]["vlm"]
    assert summary["stability"] == {
        "items": 2,
        "stable": 1,
        "unstable": 1,
        "identical": pytest.approx((2 / 3 + 1) / 2),
        "pairwise_cer": pytest.approx(ONE / 3),
    }
    out = result.stdout.str()
    assert "unstable items" in out and "unstable: 2 different outputs in 3 repeats" in out
    assert sum(server.counts.values()) == 6
    junit = ElementTree.parse(pytester.path / "junit.xml").getroot()
    properties = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in junit.iter("testcase")
    }
    assert properties["a[vlm]"]["ocr.repeats.unstable"] == "True" and properties["a[vlm]"]["ocr.repeats.n"] == "3"
    assert properties["b[vlm]"]["ocr.repeats.unstable"] == "False"
    html = (pytester.path / "r.html").read_text()
    assert "unstable: 2 different outputs in 3 repeats" in html  # a's warning
    assert '<tr class="stability"><th scope="row">unstable items</th><td class="num">1</td></tr>' in html
    markdown = (pytester.path / "step-summary.md").read_text()
    assert "| unstable items | 1 |" in markdown and "| repeated items | 2 |" in markdown
    assert "unstable: 2 different outputs in 3 repeats" in markdown  # the item's warning


def test_repeats_bypass_the_cache_and_the_command_line_overrides_files(pytester, varying, tmp_path):
    server = varying()
    write_suite(pytester, server.server.ocr_url, {"repeat": 3}, {})
    cache = tmp_path / "cache"
    args = ("-p", "no:cacheprovider", "--ocr-cache-dir", str(cache), "--ocr-report", "r.json")
    pytester.runpytest(*args).assert_outcomes(passed=2)
    assert sum(server.counts.values()) == 6
    # the first recognition comes from the cache, every repeat from the engine
    pytester.runpytest(*args).assert_outcomes(passed=2)
    assert sum(server.counts.values()) == 6 + 2 * 2
    assert records(pytester)["a"]["cached"]
    pytester.runpytest(*args, "--ocr-repeat", "1").assert_outcomes(passed=2)
    assert sum(server.counts.values()) == 10 and records(pytester)["a"]["repeats"] is None
    result = pytester.runpytest(*args, "--ocr-repeat", "0")
    assert result.ret == 4 and "--ocr-repeat: expected a whole number from 1 to 1000, not 0" in result.stderr.str()


def test_repeats_run_together_when_the_engine_takes_requests_in_parallel(pytester, varying):
    server = varying(sleep_s=0.3)
    write_suite(pytester, server.server.ocr_url, {"concurrency": 4}, {"repeat": 4})
    pytester.makefile(".ocr.yaml", suite=(pytester.path / "suite.ocr.yaml").read_text().replace('"b.jpg"', '"a.png"'))
    result = pytester.runpytest("-p", "no:cacheprovider", "-k", "a and not b", "--ocr-report", "r.json")
    result.assert_outcomes(passed=1)
    assert server.peak == 3  # after the first recognition, the three repeats at once
    assert len(records(pytester)["a"]["repeats"]["outputs"]) == 4
