"""The HTML report against a baseline and with a dataset suite (issue 13): a first real
run writes a report, a second run with degraded, mended and new output compares with it
(``--ocr-baseline``) and writes the page. Checked as written (parsed HTML) and in a real
headless Chromium, also driven like a reader drives it (a filter chosen, the raw-text
switch clicked, an overview link followed) over the DevTools protocol on a pipe
(``pytest_ocr.browser.chromium``)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from conftest import DATA
from helpers.chromium import Browser, rendered
from helpers.dom import Tree, assert_nothing_injected, embedded

from pytest_ocr.metrics.normalize import PROFILES, Normalization
from pytest_ocr.report.html import baseline as html_baseline
from pytest_ocr.report.html import cases as html_cases
from pytest_ocr.report.html import page as html_page
from pytest_ocr.report.numbers import number, signed
from pytest_ocr.run.baseline import Baseline
from pytest_ocr.run.comparison import view
from pytest_ocr.run.record import RunRecord
from pytest_ocr.run.result import CaseResult
from pytest_ocr.run.stored import with_scored_texts
from pytest_ocr.scoring.scored import ScoredTexts

pytestmark = pytest.mark.slow

# Reads "<image stem>.ocr.txt"; an image named "lowconf" is read with a low confidence.
ENGINE = """
from pathlib import Path

def read(image_path):
    path = Path(image_path)
    return {"text": path.with_suffix(".ocr.txt").read_text(encoding="utf-8"),
            "confidence": 0.3 if "lowconf" in path.stem else 0.9}
"""
REFERENCE = "hello world"
# folded: case and line breaks are what the case's normalisation (casefold, whitespace
# collapsed) ignores; "wurld" is the one error it scores.
FOLDED_REFERENCE = "Hello World\nagain"
FOLDED_OUTPUT = "HELLO  wurld again"
CASES = (
    """engines: {fake: {type: python, function: "engine:read"}}
defaults: {engine: fake, thresholds: {cer: "< 0.5"}}
cases:
  - {id: steady, image: steady.tif, expected: {text: hello world}}
  - {id: slipped, image: slipped.tif, expected: {text: hello world}}
  - {id: slipped-more, image: slipped-more.tif, expected: {text: hello world}}
  - {id: mended, image: mended.tif, expected: {text: hello world}}
  - {id: folded, image: folded.tif, normalize: {casefold: true}, expected: {text: """
    + json.dumps(FOLDED_REFERENCE)
    + "}}\n"
)
FRESH = "  - {id: fresh, image: fresh.tif, expected: {text: hello world}}\n"
DATASET = """engines: {fake: {type: python, function: "engine:read"}}
defaults: {engine: fake}
dataset: {type: paddle, label_file: labels.txt, conf_threshold: 0.5}
"""
# A label file is untrusted text too: its skipped entry's reason names the hostile path.
HOSTILE_PATH = 'img/"><script>alert(1)</script><img src=x onerror=alert(2)>.jpg'
LABELS = "img/a.jpg\thello\nimg/b.jpg\tworld\nimg/lowconf.jpg\tignored\nno tab on this line\n" + HOSTILE_PATH + "\tx\n"
BEFORE = {
    "steady": REFERENCE,
    "slipped": REFERENCE,
    "slipped-more": REFERENCE,
    "mended": "hellx wxrld",
    "folded": FOLDED_OUTPUT,
    "fresh": REFERENCE,
}
# slipped: 1 error in 11 (CER 0.0909), slipped-more: 2 (0.1818), so slipped-more is the worse
# regression; mended: 2 errors -> 0; fresh has no record in the baseline (and misses its threshold).
AFTER = {**BEFORE, "slipped": "hello w0rld", "slipped-more": "hxllo w0rld", "mended": REFERENCE, "fresh": "hello"}
KEY = "s.ocr.yaml::{}[fake]"


def _outputs(root: Path, texts: dict[str, str]) -> None:
    for name, text in texts.items():
        (root / f"{name}.ocr.txt").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two real sessions (subprocesses): base.json, then head.json and head.html against it.
    Returns (page text, head report, directory)."""
    root = tmp_path_factory.mktemp("baseline-html")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    (root / "engine.py").write_text(ENGINE, encoding="utf-8")
    image = (DATA / "pages" / "tess_phototest.tif").read_bytes()
    for name in BEFORE:
        (root / f"{name}.tif").write_bytes(image)
    (root / "img").mkdir()
    for stem, text in {"a": "hello", "b": "word", "lowconf": "ignored"}.items():
        shutil.copy(DATA / "lines" / "rapidocr_en_rec.jpg", root / "img" / f"{stem}.jpg")
        (root / "img" / f"{stem}.ocr.txt").write_text(text, encoding="utf-8")
    (root / "labels.txt").write_text(LABELS, encoding="utf-8")
    (root / "d.ocr.yaml").write_text(DATASET, encoding="utf-8")
    options = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--ocr-no-cache"]

    def session(*args: str) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-m", "pytest", *options, *args]
        return subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=300)

    (root / "s.ocr.yaml").write_text(CASES, encoding="utf-8")
    _outputs(root, BEFORE)
    first = session("--ocr-report", "base.json")
    assert first.returncode == 0, first.stdout[-3000:]
    (root / "s.ocr.yaml").write_text(CASES + FRESH, encoding="utf-8")
    _outputs(root, AFTER)
    second = session("--ocr-baseline", "base.json", "--ocr-report", "head.json", "--ocr-html", "head.html")
    assert second.returncode == 1, second.stdout[-3000:]  # the two regressions and fresh fail
    page = (root / "head.html").read_text(encoding="utf-8")
    head = json.loads((root / "head.json").read_text(encoding="utf-8"))
    return page, head, root


def _records(report: dict) -> dict[str, dict]:
    return {r["key"]: r for r in report["results"]}


# -- the overview, as written ------------------------------------------------------------------


def test_the_run_is_what_the_tests_below_assume(runs):
    _, head, _ = runs
    records = _records(head)
    assert records[KEY.format("slipped-more")]["metrics"]["cer"] > records[KEY.format("slipped")]["metrics"]["cer"]
    [engine] = head["baseline"]["engines"]
    assert engine["regressed_items"] == [KEY.format("slipped-more"), KEY.format("slipped")]  # worst first
    assert records[KEY.format("fresh")]["baseline"]["status"] == "new"
    mended = records[KEY.format("mended")]["baseline"]
    assert [d["verdict"] for d in mended["deltas"]] == ["better"]
    folded = records[KEY.format("folded")]
    assert folded["metrics"]["cer"] == pytest.approx(1 / 17)  # "wurld": one substitution in 17 characters
    assert folded["details"]["cer"]["normalization"] == ["NFC", "casefold", "collapse_whitespace"]
    [dataset] = head["datasets"]
    assert (dataset["total"], dataset["evaluated"], dataset["filtered"], dataset["skipped"]) == (5, 2, 1, 2)


def test_overview_lists_regressed_improved_and_new_items_linking_to_their_cases(runs):
    page, head, _ = runs
    tree = Tree(page)
    records = _records(head)
    ids = {key: r["id"] for key, r in records.items()}
    [engine] = head["baseline"]["engines"]
    counts = tree.root.find("table", cls="baseline-engines").find("tbody").find("tr")
    assert counts.find("th").text() == "fake"
    # compared, new, regressed, improved: the JSON's counts, and the improved item counted here
    assert [td.text() for td in counts.find_all("td")] == [str(engine["compared"]), "1", "2", "1"]
    section = tree.root.find("section", cls="baseline-engine")
    for kind, keys in (
        ("regressed", engine["regressed_items"]),
        ("improved", [KEY.format("mended")]),
        ("new", [KEY.format("fresh")]),
    ):
        links = section.find("ol", cls=kind).find_all("a")
        assert [a.text() for a in links] == [ids[k] for k in keys], kind
        for a, key in zip(links, keys, strict=True):
            assert a.attrs["href"].startswith("#")
            assert parse_qs(a.attrs["href"][1:]) == {"view": ["cases"], "outcome": [kind], "case": [ids[key]]}
    # each regressed item says by how much, in numbers rounded for people
    worst = records[engine["regressed_items"][0]]["baseline"]["deltas"][0]
    why = section.find("ol", cls="regressed").find_all("li")[0].find("span", cls="why").text()
    assert why == (
        f": cer {number(worst['old'])} → {number(worst['new'])} ({signed(worst['new'] - worst['old'])}; "
        f"tolerance {worst['tolerance']})"
    )
    assert why == ": cer 0.0000 → 0.1818 (+0.1818; tolerance 0)"
    # how the compared metric's averages moved, with their paired statistics, as the JSON report has them
    assert [m["metric"] for m in engine["metrics"]] == ["cer", "wer"]  # compared (a threshold), and a headline one
    move = engine["metrics"][0]
    rows = section.find("table", cls="moves").find("tbody").find_all("tr")[:2]
    assert [p["kind"] for p in move["paired"]] == ["macro", "micro"]
    assert move["paired"][0]["old"] == move["old_mean"] and move["paired"][0]["new"] == move["new_mean"]
    for row, p in zip(rows, move["paired"], strict=True):
        assert [td.text() for td in row.find_all("td")] == [
            f"cer {p['kind']}",
            str(p["n"]),
            number(p["old"]),
            number(p["new"]),
            signed(p["new"] - p["old"]),
            f"{signed(p['low'])} to {signed(p['high'])}",
            f"{p['p_value']:.3g}",
            number(p["detectable"]),
            "worse" if p["new"] > p["old"] else "better" if p["new"] < p["old"] else "same",
        ]
    match = tree.root.find("p", cls="baseline-match").text()
    assert f"{head['baseline']['matched']} of {head['baseline']['current']} measured items" in match


def test_long_lists_are_cut_with_a_link_to_the_whole_filtered_list(runs, monkeypatch):
    _, head, root = runs
    run = RunRecord.from_document(head)
    run.comparison = view(Baseline.load(root / "base.json"), run.results, None, 0.5)
    monkeypatch.setattr(html_baseline, "LISTED_ITEMS", 1)
    tree = Tree(html_page.render(run, root))
    section = tree.root.find("section", cls="baseline-engine")
    [shown] = section.find("ol", cls="regressed").find_all("a")
    assert shown.text() == _records(head)[KEY.format("slipped-more")]["id"]  # the worst
    more = [p for p in section.find_all("p", cls="note") if "more" in p.text()]
    assert [p.text() for p in more] == ["… and 1 more: all 2 regressed items"]
    assert parse_qs(more[0].find("a").attrs["href"][1:]) == {
        "view": ["cases"],
        "engine": ["fake"],
        "outcome": ["regressed"],
    }


def test_overview_shows_the_dataset_accounting_of_the_json_report(runs):
    page, head, _ = runs
    tree = Tree(page)
    table = tree.root.find("table", cls="datasets")
    header = [th.text() for th in table.find("thead").find_all("th")]
    assert header[:7] == ["dataset", "type", "engine", "total", "evaluated", "filtered", "skipped"]
    [row] = table.find("tbody").find_all("tr")
    [d] = head["datasets"]
    cells = dict(zip(header, (td.text() for td in row.find_all("td")), strict=True))
    assert cells == {
        "dataset": d["file"],
        "type": "paddle",
        "engine": "fake",
        "total": "5",
        "evaluated": "2",
        "filtered": "1",
        "skipped": "2",
        "accuracy": number(d["accuracy"]),
        "ned": number(d["ned"]),
        "similarity": number(d["ned_similarity"]),
        "wall time": f"{d['wall_s']:.2f} s",
        "inference/img": f"{d['inference_mean_ms']:.1f} ms",
    }
    # a: "hello" read right; b: "world" read as "word" (NED 1/5): accuracy 1/2, ned 0.1
    assert (cells["accuracy"], cells["ned"], cells["similarity"]) == ("0.5000", "0.1000", "0.9000")
    skipped = [li.text() for li in tree.root.find("ul", cls="skipped").find_all("li")]
    assert skipped == [f"{e['file']}:{e['line']}: {e['reason']}" for e in d["skipped_entries"]]
    assert len(skipped) == 2 and "labels.txt:4" in skipped[0]
    # the hostile path is in the page as text, never as markup
    assert skipped[1] == f"labels.txt:5: image not found: {HOSTILE_PATH}"
    assert "<script>alert" not in page and "<img src=x" not in page
    assert not tree.root.find_all("img") and len(tree.root.find_all("script", type=None)) == 1


# -- the scored diff ------------------------------------------------------------------------------


def _edits(ops: list[int]) -> int:
    return sum(max(ops[k + 1], ops[k + 2]) for k in range(0, len(ops), 3) if ops[k])


def test_the_embedded_scored_texts_are_what_the_metrics_compared(runs):
    page, head, _ = runs
    cases = {c["id"]: c for c in embedded(Tree(page))["cases"]}
    folded = cases[_records(head)[KEY.format("folded")]["id"]]
    assert folded["scored"]["reference"] == "hello world again"
    assert folded["scored"]["prediction"] == "hello wurld again"
    assert folded["normalization"] == ["NFC", "casefold", "collapse_whitespace"]
    checked = 0
    for case in cases.values():
        if case["normalization"] is None:  # not scored: the filtered item
            assert case["scored"] is None and case["outcome"] == "filtered" and not case["metrics"]
            continue
        scored = case["scored"]
        reference = case["reference"] if scored.get("same") or scored["reference"] is None else scored["reference"]
        ops = case["diff"] if scored.get("same") else scored["diff"]
        # the edits the scored alignment shows are the CER's numerator
        assert case["metrics"]["cer"] == pytest.approx(_edits(ops) / max(len(reference), 1)), case["id"]
        checked += 1
    assert checked == len([c for c in cases.values() if c["outcome"] in ("passed", "failed")]) == 8
    # the raw alignment marks far more than the one error the metrics saw
    assert _edits(folded["diff"]) > 5


@pytest.mark.parametrize(
    "normalization",
    [
        Normalization(),
        Normalization.from_dict("none"),
        *(Normalization.from_dict(name) for name in PROFILES),
        Normalization(unicode="NFKD", casefold=True, remove_punctuation=True, whitespace="keep"),
        Normalization.from_dict({"profile": "historic", "equivalences": {"ſt": "st", '"': "'", ":": ";"}}),
        Normalization.from_dict({"profile": "tibetan", "unicode": "none", "equivalences": {"ä": "ae"}}),
    ],
    ids=lambda n: ",".join(n.steps()) or "none",
)
def test_the_normalisation_is_rebuilt_from_the_steps_a_result_records(normalization):
    text = '  Straße ſt "ﬁ":\n\tÄ  uͤ ǰ\u0f0b\u0f0b\u0f0d \u200bMICRO µ ä  '
    rebuilt = Normalization.from_steps(normalization.steps())
    assert rebuilt is not None
    assert rebuilt(text) == normalization(text)
    assert rebuilt(unicodedata.normalize("NFD", text)) == normalization(unicodedata.normalize("NFD", text))


# A result with nothing but what every result has.
BARE = {
    "key": "s.ocr.yaml::x[e]",
    "id": "s.ocr.yaml::x[e]",
    "case": "x",
    "file": "s.ocr.yaml",
    "line": 1,
    "engine": "e",
    "image": "x.png",
    "outcome": "passed",
}


def test_steps_this_version_does_not_know_give_no_scored_view():
    assert Normalization.from_steps(["NFC", "strip_accents"]) is None
    assert Normalization.from_steps(["profile:future"]) is None
    assert Normalization.from_steps(["equivalences:{not json"]) is None
    assert Normalization.from_steps(None) is None
    [unknown, folded, same, no_text_metric] = [
        CaseResult.from_dict({**BARE, "reference": ref, "prediction": hyp, "details": details})
        for ref, hyp, details in (
            ("a", "b", {"cer": {"normalization": ["NFC", "strip_accents"]}}),
            ("Ab", "ab", {"cer": {"normalization": ["casefold"]}}),
            ("ab", "ab", {"wer": {"normalization": ["NFC"]}}),
            ("Ab", "ab", {"field_f1": {}}),
        )
    ]
    with_scored_texts([unknown, folded, same, no_text_metric])
    assert unknown.scored is None and no_text_metric.scored is None
    assert folded.scored == ScoredTexts("ab", None)
    assert same.scored == ScoredTexts(None, None)
    assert html_cases.scored_view(unknown) is None
    assert html_cases.scored_view(folded) == {"reference": "ab", "prediction": None, "diff": [0, 2, 2]}
    assert html_cases.scored_view(same) == {"same": True}


def test_a_stored_report_gives_the_page_the_scored_texts_the_run_kept(runs):
    # pytest-ocr merge renders from reports, which do not hold the scored texts: rebuilt from
    # the texts and the recorded steps, they are what the run itself kept for its page.
    page, head, root = runs
    assert not any("scored" in r for r in head["results"])  # not in the JSON report
    run = RunRecord.from_document(head)
    with_scored_texts(run.results)
    live = {c["id"]: c["scored"] for c in embedded(Tree(page))["cases"]}
    again = {c["id"]: c["scored"] for c in embedded(Tree(html_page.render(run, root)))["cases"]}
    assert again == live
    assert sum(s is not None and "diff" in s for s in live.values()) >= 1


# -- in the browser ---------------------------------------------------------------------------------


def _diff_marks(detail) -> list[tuple[str, str]]:
    table = detail.find("table", cls="diff")
    return [(s.attrs["class"], s.text()) for s in table.find_all("span") if s.attrs["class"] != "d-eq"]


def test_browser_case_shows_its_baseline_deltas_rounded(runs):
    page, head, root = runs
    record = _records(head)[KEY.format("slipped-more")]
    body = rendered(root, root / "head.html", "#case=" + record["id"])
    box = body.find("div", cls="baseline")
    assert box.find("h4").text() == "Baseline: compared, regressed"
    [row] = box.find("table", cls="deltas").find("tbody").find_all("tr")
    assert [td.text() for td in row.find_all("td")] == ["cer", "0.0000", "0.1818", "+0.1818", "0", "regressed"]
    body = rendered(root, root / "head.html", "#case=" + _records(head)[KEY.format("mended")]["id"])
    box = body.find("div", cls="baseline")
    assert box.find("h4").text() == "Baseline: compared, improved"
    [row] = box.find("table", cls="deltas").find("tbody").find_all("tr")
    assert [td.text() for td in row.find_all("td")] == ["cer", "0.1818", "0.0000", "-0.1818", "0", "better"]
    # the overview holds the label file's hostile path: as text, so the page has its own scripts and image only
    assert_nothing_injected(body, scripts=len(Tree(page).root.find_all("script")))
    assert len(body.find_all("img")) == 1


def test_browser_names_a_dataset_items_entry_and_finds_it_by_its_label_file(runs):
    _, head, root = runs
    record = _records(head)["d.ocr.yaml::img.b[fake]"]
    assert (record["source_file"], record["source_line"]) == ("labels.txt", 2)
    body = rendered(root, root / "head.html", "#case=" + record["id"])
    facts = body.find("dl", cls="facts")
    shown = dict(
        zip((dt.text() for dt in facts.find_all("dt")), (dd.text() for dd in facts.find_all("dd")), strict=True)
    )
    assert shown["entry"] == "labels.txt:2" and shown["file"] == "d.ocr.yaml:3"
    body = rendered(root, root / "head.html", "#q=labels.txt")
    rows = [r.attrs["data-id"] for r in body.find_all("tr", cls="case-row")]
    assert rows == [r["id"] for r in head["results"] if r.get("source_file") == "labels.txt"]
    assert len(rows) == 3


def test_browser_diff_shows_what_was_scored_and_the_switch_state_shows_the_raw_texts(runs):
    _, head, root = runs
    folded = _records(head)[KEY.format("folded")]["id"]
    body = rendered(root, root / "head.html", "#case=" + folded)
    detail = body.find("div", cls="detail")
    box = detail.find("div", cls="diff-box")
    assert box.attrs["data-text"] == "scored"
    # case and spacing differences are not marked: only o -> u, which the metrics counted
    assert _diff_marks(detail) == [("d-sub", "o"), ("d-sub", "u")]
    assert "after the normalisation the metrics applied (NFC, casefold, collapse_whitespace)" in box.text()

    body = rendered(root, root / "head.html", "#case=" + folded + "&text=raw")
    detail = body.find("div", cls="detail")
    assert detail.find("div", cls="diff-box").attrs["data-text"] == "raw"
    marks = _diff_marks(detail)
    # the case differences are marked now, on both sides
    assert ("d-sub", "ello") in marks and ("d-sub", "ELLO") in marks
    # the texts as given, the line break shown as a symbol and the extra space as a gap
    [row] = detail.find("table", cls="diff").find("tbody").find_all("tr")
    ref_cell, hyp_cell = row.find_all("td")
    assert ref_cell.text() == "Hello ·World⏎again"
    assert hyp_cell.text() == FOLDED_OUTPUT


# -- driving the page ------------------------------------------------------------------------------


@pytest.fixture
def browser():
    driven = Browser()
    yield driven
    driven.close()
    # Uncaught exceptions, and errors and warnings (a policy violation is one) from the page or the browser.
    level = {"Runtime.consoleAPICalled": lambda p: p["type"], "Log.entryAdded": lambda p: p["entry"]["level"]}
    problems = [
        e
        for e in driven.events
        if e["method"] == "Runtime.exceptionThrown" or level[e["method"]](e["params"]) in ("error", "warning")
    ]
    assert problems == [], problems


def test_a_reader_filters_follows_an_overview_link_and_switches_to_the_raw_texts(runs, browser):
    _, head, root = runs
    records = _records(head)
    ids = {key: r["id"] for key, r in records.items()}
    url = (root / "head.html").as_uri()
    browser.open(url)
    # the overview's first regressed item is the worst; its link opens it in the list of regressed items
    first = browser.js("document.querySelector('ol.regressed a').textContent")
    assert first == ids[KEY.format("slipped-more")]
    browser.click("ol.regressed a")
    browser.wait("!document.getElementById('cases').hidden")
    in_order = [r["id"] for r in head["results"]]  # the list's order: by key
    assert browser.rows() == [i for i in in_order if i in (ids[KEY.format("slipped")], first)]
    assert browser.js("document.querySelector('div.detail').dataset.case") == first
    assert browser.js("document.getElementById('filter-outcome').value") == "regressed"

    # the outcome filter: the baseline's three kinds, and the item's own outcomes
    failed = [r["id"] for r in head["results"] if r["outcome"] == "failed"]
    assert set(failed) == {ids[KEY.format(k)] for k in ("slipped", "slipped-more", "fresh")}
    for kind, shown in (
        ("improved", [ids[KEY.format("mended")]]),
        ("new", [ids[KEY.format("fresh")]]),
        ("regressed", [i for i in failed if i != ids[KEY.format("fresh")]]),
        ("failed", failed),
    ):
        browser.choose("#filter-outcome", kind)
        assert browser.rows() == shown, kind
        assert parse_qs(browser.js("location.hash").lstrip("#"))["outcome"] == [kind]
    browser.choose("#filter-outcome", "")
    assert len(browser.rows()) == len([r for r in head["results"] if r["outcome"] != "invalid"])

    # the folded case: the scored diff marks one substitution; the switch shows the raw texts
    folded = ids[KEY.format("folded")]
    browser.open(url + "#case=" + folded)
    marks = "Array.from(document.querySelectorAll('table.diff span.d-sub'), s => s.textContent)"
    assert browser.js(marks) == ["o", "u"]
    assert browser.js("document.querySelector('input.raw-switch').checked") is False
    browser.click("input.raw-switch")
    assert browser.js("document.querySelector('div.diff-box').dataset.text") == "raw"
    assert "ELLO" in browser.js(marks) and "ello" in browser.js(marks)
    assert parse_qs(browser.js("location.hash").lstrip("#"))["text"] == ["raw"]
    browser.click("input.raw-switch")
    assert browser.js(marks) == ["o", "u"]
    assert "text" not in parse_qs(browser.js("location.hash").lstrip("#"))


def test_the_page_rounds_numbers_by_the_rule_of_numbers_py(runs, browser, tmp_path):
    # The page formats the case list's numbers itself; its rule must be numbers.py's, ties
    # (1/32 and 3/32 round half to even) and tiny values (three significant digits) included.
    _, head, root = runs
    values = [0.03125, 0.09375, 0.000123, 1.5e-05, 0.0009996, 0.00099949, 12.5, 1 / 3, 0.0, 2.00005, 0.99995, -0.0]
    run = RunRecord.from_document(head)
    measured = [r for r in run.results if r.metrics.get("cer") is not None and r.metrics.get("wer") is not None]
    slots = [(r.id, m) for r in measured for m in ("cer", "wer")]
    assert len(slots) >= len(values)
    chosen = dict(zip(slots, values, strict=False))
    run.results = [
        dataclasses.replace(r, metrics={**r.metrics, **{m: v for (i, m), v in chosen.items() if i == r.id}})
        for r in run.results
    ]
    target = tmp_path / "numbers.html"
    target.write_text(html_page.render(run, root), encoding="utf-8")
    browser.open(target.as_uri() + "#view=cases")
    assert browser.js("Array.from(document.querySelectorAll('table.cases th.num'), t => t.textContent)") == [
        "cer",
        "wer",
    ]
    shown = browser.js(
        "Object.fromEntries(Array.from(document.querySelectorAll('tr.case-row'),"
        " r => [r.dataset.id, Array.from(r.querySelectorAll('td.num'), td => td.textContent)]))"
    )
    assert {slot: shown[slot[0]][("cer", "wer").index(slot[1])] for slot in chosen} == {
        slot: number(v) for slot, v in chosen.items()
    }
    assert [number(v) for v in values[:6]] == ["0.0312", "0.0938", "0.000123", "1.5e-05", "0.001", "0.000999"]
    assert number(-0.0) == "-0.0000"
