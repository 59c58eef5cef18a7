"""Checks (facts about the page) in case files and olmOCR-Bench folders, through real
pytest sessions: verdicts in every output, checks_passed as a metric, facts lost since
the baseline, repeats, items without output, and located errors.

The sidecar engine returns exactly the text given to each image."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from urllib.parse import urlencode

import pytest
from conftest import REPO
from test_html import rendered
from test_plugin import load_report, run

pytest_plugins = ["pytester"]

SAMPLE = REPO / "tests" / "data" / "olmocr-bench-sample"

PAGE = """# Quarterly report

Revenue grew in every region.

| Region | Revenue |
|--------|---------|
| North  | 4.2     |
| South  | 3.1     |

Prepared by the finance team.
"""

CHECKS = """    checks:
      - {id: heading, type: present, text: Quarterly report}
      - {id: growth, type: order, before: Revenue grew, after: Prepared by}
      - {id: north, type: table, cell: "4.2", left: North, top_heading: Revenue}
      - {id: no-draft, type: absent, text: DRAFT}
      - {type: baseline}
"""


def _page_suite(suite, text: str, extra: str = "") -> None:
    suite.image("page.tif", text)
    suite.write("doc.ocr.yaml", f"cases:\n  - id: page\n    image: page.tif\n{CHECKS}{extra}")


def _record(suite, name: str = "report.json") -> dict:
    (record,) = load_report(suite, name)["results"]
    return record


def test_facts_that_hold_pass_the_item_with_every_verdict_recorded(suite):
    _page_suite(suite, PAGE)
    run(suite, "--ocr-report", "report.json").assert_outcomes(passed=1)
    record = _record(suite)
    assert [(f["id"], f["type"], f["passed"]) for f in record["facts"]] == [
        ("heading", "present", True),
        ("growth", "order", True),
        ("north", "table", True),
        ("no-draft", "absent", True),
        ("check-5", "baseline", True),
    ]
    assert record["metrics"] == {"checks_passed": 1.0}
    assert record["details"]["checks_passed"]["counts"] == {"passed": 5, "facts": 5}
    # Every fact must hold unless a threshold on checks_passed says otherwise.
    assert record["thresholds"] == {"checks_passed": ">= 1"}


def test_a_fact_that_does_not_hold_fails_the_item_and_says_why_everywhere(suite, monkeypatch):
    wrong = PAGE.replace("| North  | 4.2 ", "| North  | 4.7 ").replace("Quarterly", "DRAFT Quarterly")
    _page_suite(suite, wrong)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path / "step-summary.md"))
    result = run(suite, "--ocr-report", "report.json", "--ocr-html", "report.html", "--junitxml", "junit.xml")
    result.assert_outcomes(failed=1)
    record = _record(suite)
    verdicts = {f["id"]: f for f in record["facts"]}
    assert not verdicts["north"]["passed"] and "4.2" in verdicts["north"]["reason"]
    assert not verdicts["no-draft"]["passed"]
    assert verdicts["heading"]["passed"]
    assert record["metrics"]["checks_passed"] == pytest.approx(3 / 5)
    text = result.stdout.str()
    # The failure text: the threshold, then each fact that does not hold with its reason.
    assert "checks_passed = 0.6000, expected >= 1: FAILED" in text
    assert "check north (table) does not hold:" in text
    assert "check no-draft (absent) does not hold:" in text
    assert "check heading (present) holds" in text
    assert "facts held" in text and "3 of 5" in text
    # The HTML report, as a browser draws the item: every fact with its verdict, those that do not hold first.
    body = rendered(suite.path, suite.path / "report.html", "#" + urlencode({"view": "cases", "case": record["id"]}))
    checks = body.find("div", cls="checks")
    assert checks.find("h4").text() == "Checks: 3 of 5 hold"
    rows = [[cell.text() for cell in row.find_all("td")] for row in checks.find("tbody").find_all("tr")]
    assert [row[0] for row in rows[:2]] == ["north", "no-draft"] and rows[0][3] == "does not hold"
    assert "4.2" in rows[0][4]
    junit = (suite.path / "junit.xml").read_text(encoding="utf-8")
    assert "check north (table) does not hold" in junit
    # The GitHub step summary (Markdown) and the item's annotation.
    assert "check north (table) does not hold" in (suite.path / "step-summary.md").read_text(encoding="utf-8")
    annotation = next(line for line in text.splitlines() if line.startswith("::error file=doc.ocr.yaml"))
    assert "check north (table) does not hold" in annotation


def test_a_threshold_on_checks_passed_replaces_every_fact_must_hold(suite):
    wrong = PAGE.replace("Quarterly", "DRAFT Quarterly")
    _page_suite(suite, wrong, '    thresholds: {checks_passed: ">= 0.8"}\n')
    run(suite, "--ocr-report", "report.json").assert_outcomes(passed=1)
    assert _record(suite)["thresholds"] == {"checks_passed": ">= 0.8"}
    _page_suite(suite, wrong, "    thresholds: {checks_passed: null}\n")
    run(suite, "--ocr-report", "report.json").assert_outcomes(passed=1)
    record = _record(suite)
    assert record["thresholds"] == {} and record["metrics"]["checks_passed"] == pytest.approx(0.8)
    # An aggregate gate on the share that holds, like any metric's.
    result = run(suite, "--ocr-report", "report.json", "--ocr-gate", "checks_passed.micro >= 0.9")
    (gate,) = load_report(suite)["gates"]
    assert result.ret == 1 and not gate["passed"] and gate["value"] == pytest.approx(0.8)


def test_a_fact_lost_since_the_baseline_is_a_regression_of_its_own(suite):
    # BASE: the draft mark makes no-draft fail; HEAD: the mark is gone but a table cell is
    # wrong. The share that holds is the same (4 of 5), above its threshold, and no metric
    # got worse: the fact lost fails the item on its own.
    threshold = '    thresholds: {checks_passed: ">= 0.5"}\n'
    _page_suite(suite, PAGE.replace("Quarterly", "DRAFT Quarterly"), threshold)
    run(suite, "--ocr-report", "base.json").assert_outcomes(passed=1)
    _page_suite(suite, PAGE.replace("4.2", "4.7"), threshold)
    result = run(suite, "--ocr-baseline", "base.json", "--ocr-report", "report.json")
    result.assert_outcomes(failed=1)
    record = _record(suite)
    assert record["baseline"]["regressed"] is True
    assert [(d["metric"], d["verdict"]) for d in record["baseline"]["deltas"]] == [("checks_passed", "same")]
    (lost,) = record["baseline"]["lost_facts"]
    assert lost["id"] == "north" and lost["type"] == "table"
    assert "check north (table) held in the baseline and no longer holds" in result.stdout.str()
    # A fact that did not hold in the baseline either is no regression.
    run(suite, "--ocr-baseline", "report.json", "--ocr-report", "again.json").assert_outcomes(passed=1)
    # `pytest-ocr compare` counts the item regressed as the run did.
    compared = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "compare", "base.json", "report.json", "--json"],
        cwd=suite.path,
        capture_output=True,
        text=True,
    )
    (case,) = json.loads(compared.stdout)["cases"]
    assert case["regressed"] is True and [f["id"] for f in case["lost_facts"]] == ["north"]
    text = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "compare", "base.json", "report.json"],
        cwd=suite.path,
        capture_output=True,
        text=True,
    ).stdout
    assert "check north (table) lost" in text


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (
            "{type: order, before: ab, after: cdef, max_diffs: 3}",
            "doc.ocr.yaml:5: cases[0].checks[0]: check 1: order: max_diffs 3 is more than half of 'before'",
        ),
        ("{type: present, text: x, cell: y}", "'cell' does not apply to a present fact"),
        (
            "{type: colour, text: x}",
            "doc.ocr.yaml:5: cases[0].checks[0].type: expected one of present, absent, order, table, baseline, "
            'math; got "colour"',
        ),
        ("{type: table}", "table: "),
    ],
)
def test_a_malformed_fact_is_located(suite, check, message):
    suite.image("page.tif", PAGE)
    suite.write("doc.ocr.yaml", f"cases:\n  - id: page\n    image: page.tif\n    checks:\n      - {check}\n")
    result = run(suite)
    assert result.ret != 0
    text = result.stdout.str()
    assert message in text
    # One problem at the check, not the schema's and ours (CI=true repeats it in the summary and an annotation).
    located = {line.strip() for line in text.splitlines() if "cases[0].checks[0]" in line and not line.startswith("::")}
    assert len(located) == 1, located


def _bench(tmp, outputs: dict[str, str], facts: list[dict], extra_lines: str = "") -> None:
    """A small olmOCR-Bench folder: one real PDF, a facts file, a system's stored outputs."""
    (tmp / "bench" / "pdfs").mkdir(parents=True)
    shutil.copy(SAMPLE / "pdfs" / "small_page_size.pdf", tmp / "bench" / "pdfs" / "doc.pdf")
    lines = [json.dumps({"pdf": "doc.pdf", "page": 1, **f}) for f in facts]
    (tmp / "bench" / "tables.jsonl").write_text("\n".join(lines) + "\n" + extra_lines, encoding="utf-8")
    (tmp / "bench" / "mysystem").mkdir()
    for name, text in outputs.items():
        (tmp / "bench" / "mysystem" / name).write_text(text, encoding="utf-8")
    (tmp / "bench.ocr.yaml").write_text("dataset: {type: olmocr-bench, path: bench}\n", encoding="utf-8")


FACTS = [
    {"id": "f1", "type": "present", "text": "turnip crop"},
    {"id": "f2", "type": "absent", "text": "BRITISH HUSBANDRY"},
]


def test_stored_repeats_are_judged_as_olmocr_bench_judges_them(suite):
    # f1 holds in 2 of 3 outputs (holds); f2 in 1 of 3 (does not).
    _bench(
        suite.path,
        {
            "doc_pg1_repeat1.md": "the turnip crop BRITISH HUSBANDRY",
            "doc_pg1_repeat2.md": "the turnip crop BRITISH HUSBANDRY",
            "doc_pg1_repeat3.md": "nothing here",
        },
        FACTS,
    )
    result = run(suite, "--ocr-report", "report.json")
    record = _record(suite)
    assert record["engine"] == "mysystem" and record["repeats"]["n"] == 3
    verdicts = {f["id"]: (f["passed"], f["passes"], f["runs"]) for f in record["facts"]}
    assert verdicts == {"f1": (True, 2, 3), "f2": (False, 1, 3), "doc.pdf_baseline": (True, 3, 3)}
    facts = load_report(suite)["summary"]["mysystem"]["facts"]
    assert facts["categories"] == {"baseline": [1, 1], "tables": [1, 2]}
    assert facts["score"] == pytest.approx((1.0 + 0.5) / 2)
    assert facts["types"]["present"] == [pytest.approx(2 / 3), 1]
    assert "held in 1 of 3 outputs" in result.stdout.str()


def test_a_page_without_output_holds_none_of_its_facts_and_bad_lines_are_skipped(suite):
    _bench(
        suite.path,
        {},
        FACTS,
        extra_lines='{"pdf": "missing.pdf", "page": 1, "id": "m", "type": "baseline"}\nnot json\n',
    )
    (suite.path / "bench" / "other").mkdir()
    (suite.path / "bench" / "other" / "doc_pg1_repeat1.md").write_text("turnip crop", encoding="utf-8")
    result = run(suite, "--ocr-report", "report.json")
    report = load_report(suite)
    by_engine = {r["engine"]: r for r in report["results"]}
    missing = by_engine["mysystem"]
    assert missing["outcome"] == "error" and "no stored output for doc.pdf page 1" in missing["error"]
    assert [f["passed"] for f in missing["facts"]] == [False, False, False]
    assert report["summary"]["mysystem"]["facts"]["score"] == 0.0
    assert by_engine["other"]["outcome"] == "passed"
    skipped = {(s["line"], s["reason"].split(":")[0]) for s in report["datasets"][0]["skipped_entries"]}
    assert (3, "the document missing.pdf is not in pdfs/") in skipped
    assert any(line == 4 and reason == "not valid JSON" for line, reason in skipped)
    assert "skipped" in result.stdout.str()


def test_shards_merged_give_the_facts_and_score_of_one_run(suite):
    suite.write("bench.ocr.yaml", f"dataset: {{type: olmocr-bench, path: {json.dumps(str(SAMPLE))}}}\n")
    run(suite, "--ocr-report", "full.json")
    for k in (1, 2, 3):
        run(suite, "--ocr-shard", f"{k}/3", "--ocr-report", f"shard{k}.json")
    merged = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "merge", "shard1.json", "shard2.json", "shard3.json", "-o", "m.json"],
        cwd=suite.path,
        capture_output=True,
        text=True,
    )
    assert merged.returncode == 1, merged.stdout + merged.stderr  # pages whose facts do not all hold fail
    full, joined = load_report(suite, "full.json"), load_report(suite, "m.json")
    assert joined["summary"]["olmocr_pipeline"]["facts"] == full["summary"]["olmocr_pipeline"]["facts"]

    def facts(report: dict) -> dict:
        return {r["key"]: r["facts"] for r in report["results"]}

    assert facts(joined) == facts(full) and len(facts(full)) == 23
