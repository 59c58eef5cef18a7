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
from conftest import REPO, load_report, run
from helpers.chromium import Browser, rendered
from helpers.dom import assert_nothing_injected

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

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
    # What each failed fact found instead, and where: the nearest cell with its neighbours, where the text was.
    north = (
        "no cell matching '4.2' (threshold 1.00) in 1 table; the nearest is '4.7' (similarity 0.67) on line 7, "
        "row 2, column 2 of its table, with above 'Revenue', below '3.1', left 'North'"
    )
    draft = "'DRAFT' found at line 1, column 3: best match 1.000 >= threshold 1.000"
    assert (verdicts["north"]["passed"], verdicts["north"]["reason"]) == (False, north)
    assert (verdicts["no-draft"]["passed"], verdicts["no-draft"]["reason"]) == (False, draft)
    output = wrong
    assert [output[a:b] for a, b in verdicts["north"]["spans"]] == ["4.7"]
    assert [output[a:b] for a, b in verdicts["no-draft"]["spans"]] == ["DRAFT"]
    # Where each fact is written: its line in the case file.
    assert [(f["id"], f["file"], f["line"]) for f in record["facts"]] == [
        ("heading", "doc.ocr.yaml", 5),
        ("growth", "doc.ocr.yaml", 6),
        ("north", "doc.ocr.yaml", 7),
        ("no-draft", "doc.ocr.yaml", 8),
        ("check-5", "doc.ocr.yaml", 9),
    ]
    assert verdicts["heading"]["passed"] and verdicts["heading"]["spans"] == []
    assert record["metrics"]["checks_passed"] == pytest.approx(3 / 5)
    text = result.stdout.str()
    # The failure text: the threshold, then each fact that does not hold with its reason.
    assert "checks_passed = 0.6000, expected >= 1: FAILED" in text
    assert f"check north (table) does not hold: {north}" in text
    assert f"check no-draft (absent) does not hold: {draft}" in text
    assert "check heading (present) holds" in text
    assert "facts held" in text and "3 of 5" in text
    # The HTML report, as a browser draws the item: every fact with its verdict, those that do not hold first.
    body = rendered(suite.path, suite.path / "report.html", "#" + urlencode({"view": "cases", "case": record["id"]}))
    checks = body.find("div", cls="checks")
    assert checks.find("h4").text() == "Checks: 3 of 5 hold"
    rows = [[cell.text() for cell in row.find_all("td")] for row in checks.find("tbody").find_all("tr")]
    assert [row[0] for row in rows[:2]] == ["north", "no-draft"] and rows[0][3] == "does not hold"
    assert rows[0][4] == north + " (marked in the output)"
    junit = (suite.path / "junit.xml").read_text(encoding="utf-8")
    assert f"check north (table) does not hold: {north}" in junit.replace("&apos;", "'")
    # The GitHub step summary (Markdown) and the item's annotation, at the first failed fact's own line.
    summary = (suite.path / "step-summary.md").read_text(encoding="utf-8")
    assert "check north (table) does not hold: no cell matching" in summary and "'4.7' (similarity 0.67)" in summary
    (annotation,) = [line for line in text.splitlines() if line.startswith("::error file=doc.ocr.yaml")]
    assert annotation.startswith("::error file=doc.ocr.yaml,line=7,title=OCR failed%3A page on fake::")
    assert "check north (table) does not hold: no cell matching" in annotation


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


def test_an_item_failed_by_an_olmocr_bench_fact_is_annotated_at_the_facts_jsonl_line(suite, monkeypatch):
    facts = [{"id": "f0", "type": "present", "text": "turnip crop"}, *FACTS]  # f2 (line 3) does not hold
    _bench(suite.path, {"doc_pg1_repeat1.md": "the turnip crop\nBRITISH HUSBANDRY"}, facts)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(failed=1)
    record = _record(suite)
    where = [(f["id"], f["file"], f["line"]) for f in record["facts"]]
    # olmOCR-Bench's added baseline fact is written nowhere: it points at its page's first fact.
    jsonl = "bench/tables.jsonl"
    assert where == [("f0", jsonl, 1), ("f1", jsonl, 2), ("f2", jsonl, 3), ("doc.pdf_baseline", jsonl, 1)]
    (annotation,) = [line for line in result.stdout.lines if line.startswith("::error ")]
    assert annotation.startswith(f"::error file={jsonl},line=3,title=OCR failed%3A doc_pg1 on mysystem::")
    assert "check f2 (absent) does not hold: 'BRITISH HUSBANDRY' found at line 2, column 1" in annotation


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


# -- the HTML report of a page checked by facts: its output, rendered and as written, failed facts marked


def _output_box(body):
    detail = body.find("div", cls="detail")
    return detail, detail.find("div", cls="output-box")


def test_a_checks_only_page_shows_its_output_with_each_failed_fact_marked_where_it_looked(suite):
    suite.write("bench.ocr.yaml", f"dataset: {{type: olmocr-bench, path: {json.dumps(str(SAMPLE))}}}\n")
    run(suite, "--ocr-report", "report.json", "--ocr-html", "report.html")
    report = load_report(suite)
    record = next(r for r in report["results"] if r["case"] == "earnings_pg1")
    facts = record["facts"]
    failed = next(i for i, f in enumerate(facts) if not f["passed"])
    assert facts[failed]["id"] == "earnings_table00"
    # The Markdown, rendered: the table cell the fact examined ("1,136", line 30) is in the marked table row.
    fragment = "#" + urlencode({"view": "cases", "case": record["id"]})
    detail, box = _output_box(rendered(suite.path, suite.path / "report.html", fragment))
    assert box.attrs["data-text"] == "rendered"
    shown = box.find("div", cls="rendered")
    assert shown.find_all("h1") == [] and "Recently Issued Accounting Pronouncements" in shown.text()
    (mark,) = shown.find_all(cls="fact-mark")
    assert mark.tag == "tr" and mark.attrs["data-facts"] == str(failed)
    assert [td.text() for td in mark.find_all("td")] == ["Sales, general and administrative", "1,136", "876", "680"]
    assert mark.attrs["title"] == f"check earnings_table00 (table) does not hold: {facts[failed]['reason']}"
    assert "Marked: where each check that does not hold looked" in box.find("p", cls="legend").text()
    assert "No reference text to compare with: the engine's output, rendered as Markdown" in box.text()
    # As written: the whole output, the cell's own characters marked.
    _, box = _output_box(rendered(suite.path, suite.path / "report.html", fragment + "&text=raw"))
    assert box.attrs["data-text"] == "raw"
    raw = box.find("pre", cls="raw")
    assert raw.text() == record["prediction"]
    assert [(m.text(), m.attrs["data-facts"]) for m in raw.find_all("mark")] == [("1,136", str(failed))]
    # A page with several failed facts: each marked at its own place, in both views.
    record = next(r for r in report["results"] if r["case"] == "test-graphical-text_pg1")
    _, box = _output_box(
        rendered(suite.path, suite.path / "report.html", "#" + urlencode({"case": record["id"], "text": "raw"}))
    )
    spans = [(f["id"], [record["prediction"][a:b] for a, b in f["spans"]]) for f in record["facts"] if f["spans"]]
    assert spans == [("test_graphical_text_00", ["THE PO"]), ("test_graphical_text_01", ["THE POWER OF S"])]
    # where the spans overlap, one mark names both facts
    marks = [(m.text(), m.attrs["data-facts"]) for m in box.find("pre", cls="raw").find_all("mark")]
    assert marks == [("THE PO", "0 1"), ("WER OF S", "1")]


HOSTILE_PAGE = """# Turnip <script>document.body.setAttribute('data-pwned', 1)</script>report

The <b>turnip</b> crop <img src="http://127.0.0.1:9/x.png" onerror="document.body.setAttribute('data-pwned', 2)"> grew
[well](javascript:document.body.setAttribute('data-pwned',3)) and [there](http://127.0.0.1:9/) ![a field](http://127.0.0.1:9/f.png).

<table>
<tr><th>Crop</th><th onclick="document.body.setAttribute('data-pwned', 4)">Yield</th></tr>
<tr><td>Turnip</td><td rowspan="2" style="display:none">4.2</td></tr>
<tr><td>Swede<iframe src="http://127.0.0.1:9/"></iframe><object data="http://127.0.0.1:9/"></object></td></tr>
</table>

<style>body { display: none }</style><link rel="stylesheet" href="http://127.0.0.1:9/s.css">

Formula \\(x^2\\) and a \u202ereversed\u202c word.
"""


def test_hostile_output_is_rendered_inert_and_loads_nothing(suite):
    facts = [
        {"id": "yield", "type": "table", "cell": "4.3", "left": "Turnip"},
        {"id": "script", "type": "absent", "text": "data-pwned', 1"},
    ]
    _bench(suite.path, {"doc_pg1_repeat1.md": HOSTILE_PAGE}, facts)
    run(suite, "--ocr-report", "report.json", "--ocr-html", "report.html").assert_outcomes(failed=1)
    record = _record(suite)
    assert record["prediction"] == HOSTILE_PAGE
    fragment = "#" + urlencode({"case": record["id"]})
    for view in ("", "&text=raw"):
        # rendered() fails on any console message: a blocked request or script would log one
        body = rendered(suite.path, suite.path / "report.html", fragment + view)
        assert "data-pwned" not in body.attrs
        assert_nothing_injected(body, scripts=3)  # the page's own: its code, its data, the thumbnail
        for node in body.walk():
            assert "href" not in node.attrs or node.attrs["href"].startswith("#"), node.attrs
            assert "src" not in node.attrs or node.attrs["src"].startswith("data:image/jpeg;base64,"), node.tag
        _, box = _output_box(body)
        tags = {node.tag for node in box.walk()}
        assert not tags & {"a", "iframe", "object", "link", "style", "img", "script", "b"}, tags
    _, box = _output_box(rendered(suite.path, suite.path / "report.html", fragment))
    shown = box.find("div", cls="rendered")
    # The text of the page, markup gone: no script text, images as placeholders, a link's address a tooltip.
    text = shown.text()
    assert shown.find("h1").text() == "Turnip report" and "display: none" not in text and "onerror" not in text
    assert "[image]" in text and "[image: a field]" in text
    (link,) = shown.find_all(cls="md-link")
    assert (link.tag, link.text(), link.attrs["title"]) == ("span", "there", "http://127.0.0.1:9/")
    assert "[well](javascript:" in text  # not a link CommonMark allows: its text as written
    assert "\u202e" not in text and "\ufffdreversed\ufffd" in text
    cell = next(td for td in shown.find_all("td") if td.text() == "4.2")
    assert cell.attrs.get("rowspan") == "2" and "style" not in cell.attrs
    assert "yield" in {record["facts"][int(i)]["id"] for i in cell.attrs["data-facts"].split()}
    _, box = _output_box(rendered(suite.path, suite.path / "report.html", fragment + "&text=raw"))
    raw = box.find("pre", cls="raw")
    assert raw.text() == HOSTILE_PAGE.replace("\u202e", "\ufffd").replace("\u202c", "\ufffd")
    marked = {m.text() for m in raw.find_all("mark")}
    assert marked == {'<td rowspan="2" style="display:none">4.2</td>', "data-pwned', 1"}


def test_a_deep_link_puts_its_case_at_the_top_of_the_window(suite, tmp_path):
    suite.write("bench.ocr.yaml", f"dataset: {{type: olmocr-bench, path: {json.dumps(str(SAMPLE))}}}\n")
    run(suite, "--ocr-report", "report.json", "--ocr-html", "report.html")
    ids = [r["id"] for r in load_report(suite)["results"]]
    browser = Browser()
    try:
        for case in (
            "bench.ocr.yaml::earnings_pg1[olmocr_pipeline]",
            "bench.ocr.yaml::lincoln_letter_pg1[olmocr_pipeline]",
        ):
            assert case in ids
            browser.open((suite.path / "report.html").as_uri() + "#" + urlencode({"view": "cases", "case": case}))
            browser.wait("document.querySelector('tr.detail-row img.thumb').complete")
            where = browser.js(
                "(() => { const row = document.querySelector('tr.case-row.open'); return {id: row.dataset.id,"
                " top: row.getBoundingClientRect().top, detail: document.querySelector('tr.detail-row')"
                ".getBoundingClientRect().top, bottom: row.getBoundingClientRect().bottom, scrolled: scrollY,"
                " room: document.documentElement.scrollHeight - innerHeight}; })()"
            )
            # The case's own row at the top (its scroll margin, 8 px), its details right below it; the page
            # could scroll further, so nothing held the row lower.
            assert where["id"] == case and 0 <= where["top"] <= 9, where
            assert where["detail"] == pytest.approx(where["bottom"], abs=1) and where["scrolled"] < where["room"], where
    finally:
        browser.close()
    assert [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"] == []
