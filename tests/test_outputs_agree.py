"""Every output of one run is a view of the same run record, so they agree: a run with
passed, failed, regressed, errored, filtered, skipped and invalid-file items and passing
and failing gates, against a baseline, writing every output at once (terminal summary,
JSON report, HTML, results directory, JUnit XML, GitHub annotations and step summary),
and `pytest-ocr compare` of the same two reports."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import jsonschema
import pytest
from conftest import DATA
from helpers.dom import Tree, embedded

from pytest_ocr.run.stored import report_schema

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

ENGINE = """
from pathlib import Path

def read(image_path):
    path = Path(image_path)
    sidecar = path.with_suffix(".ocr.txt")
    if not sidecar.exists():
        raise RuntimeError("engine crashed on " + path.name)
    return {"text": sidecar.read_text(encoding="utf-8"), "confidence": 0.3 if "lowconf" in path.stem else 0.9}
"""
CONFTEST = """
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if "later" in item.nodeid:
            item.add_marker(pytest.mark.skip(reason="not today"))
"""
SUITE = """engines: {fake: {type: python, function: "engine:read"}}
defaults: {engine: fake, thresholds: {cer: "< 0.3"}}
cases:
  - {id: good, image: good.tif, expected: {text: hello world}}
  - {id: bad, image: bad.tif, expected: {text: hello world}}
  - {id: slipped, image: slipped.tif, expected: {text: hello world}}
  - {id: slipped-more, image: slipped-more.tif, expected: {text: hello world}}
  - {id: broken, image: broken.tif, expected: {text: hello world}}
  - {id: later, image: later.tif, expected: {text: hello world}}
"""
DATASET = """engines: {fake: {type: python, function: "engine:read"}}
defaults: {engine: fake}
dataset: {type: paddle, label_file: labels.txt, conf_threshold: 0.5}
"""
LABELS = "img/a.jpg\thello\nimg/lowconf.jpg\tignored\nno tab on this line\n"
# bad misses its threshold in both runs (4/11); the slipped ones pass it but got worse than the baseline.
BEFORE = {
    "good": "hello world",
    "bad": "jxlly wurld",
    "slipped": "hello world",
    "slipped-more": "hello world",
    "later": "hello world",
}
AFTER = {**BEFORE, "slipped": "hello w0rld", "slipped-more": "hxllo w0rld"}


def make(pytester):
    pytester.makepyfile(engine=ENGINE, conftest=CONFTEST)
    pytester.makeini("[pytest]\npythonpath = .\n")
    image = (DATA / "pages" / "tess_phototest.tif").read_bytes()
    for name in [*BEFORE, "broken"]:
        (pytester.path / f"{name}.tif").write_bytes(image)
    (pytester.path / "img").mkdir()
    for stem, text in {"a": "hello", "lowconf": "ignored"}.items():
        (pytester.path / "img" / f"{stem}.jpg").write_bytes((DATA / "lines" / "rapidocr_en_rec.jpg").read_bytes())
        (pytester.path / "img" / f"{stem}.ocr.txt").write_text(text, encoding="utf-8")
    (pytester.path / "labels.txt").write_text(LABELS, encoding="utf-8")
    pytester.makefile(".ocr.yaml", s=SUITE, d=DATASET, bad="image: 3\n")


def outputs(pytester, texts: dict[str, str]) -> None:
    for name, text in texts.items():
        (pytester.path / f"{name}.ocr.txt").write_text(text, encoding="utf-8")


def test_every_output_of_one_run_tells_the_same_story(pytester, monkeypatch):
    make(pytester)
    outputs(pytester, BEFORE)
    gates = ("--ocr-gate", "cer.macro < 0.01", "--ocr-gate", "cer.micro < 0.9")
    pytester.runpytest("-p", "no:cacheprovider", "--ocr-no-cache", "--ocr-report", "base.json", *gates)
    outputs(pytester, AFTER)
    summary_md = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary_md))
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--ocr-no-cache",
        "--ocr-baseline",
        "base.json",
        "--ocr-report",
        "head.json",
        "--ocr-html",
        "head.html",
        "--ocr-results-dir",
        "out",
        "--junitxml",
        "junit.xml",
        *gates,
    )
    out = result.stdout.lines
    report = json.loads((pytester.path / "head.json").read_text(encoding="utf-8"))
    jsonschema.validate(report, report_schema())

    # what happened, by the report: every kind of item is there
    outcomes = Counter(r["outcome"] for r in report["results"])
    assert outcomes == {"passed": 2, "failed": 3, "error": 1, "filtered": 1, "skipped": 1, "invalid": 1}
    failed_gates = [g for g in report["gates"] if not g["passed"]]
    assert len(report["gates"]) == 2 and [g["name"] for g in failed_gates] == ["fake: cer.macro < 0.01"]
    regressed = sorted(r["key"] for r in report["results"] if r["baseline"] and r["baseline"]["regressed"])
    assert regressed == ["s.ocr.yaml::slipped-more[fake]", "s.ocr.yaml::slipped[fake]"]

    # pytest's own count: items and gates, each a test
    result.assert_outcomes(
        passed=outcomes["passed"] + len(report["gates"]) - len(failed_gates),
        failed=outcomes["failed"] + len(failed_gates),
        errors=outcomes["error"] + outcomes["invalid"],
        skipped=outcomes["skipped"] + outcomes["filtered"],
    )

    # the terminal summary's table and baseline section
    start = next(i for i, line in enumerate(out) if line.startswith("engine "))
    end = next(i for i, line in enumerate(out) if line.startswith("macro = mean"))
    table = {
        line.split()[0]: line.split()[1]
        for line in out[start:end]
        if line.split()[0] in ("cases", "passed", "failed", "errors", "filtered", "skipped")
    }
    fake = report["summary"]["fake"]
    assert table == {k: str(fake[k]) for k in ("cases", "passed", "failed", "errors", "filtered", "skipped")}
    assert "  fake: 5 compared, 0 new, 2 regressed" in out  # every item that found its record
    # "      cer worse by 0.1000 beyond 0  s.ocr.yaml::slipped[fake]" under "regressed, worst first"
    terminal_regressed = [line.split()[-1] for line in out if re.match(r"      cer worse by \d\.\d{4} beyond ", line)]
    assert terminal_regressed == ["s.ocr.yaml::slipped-more[fake]", "s.ocr.yaml::slipped[fake]"]  # worst first

    # JSON: the baseline view counts the same items
    [engine] = report["baseline"]["engines"]
    assert (engine["compared"], engine["regressed"], engine["regressed_items"]) == (5, 2, terminal_regressed)

    # the GitHub step summary
    markdown = summary_md.read_text(encoding="utf-8")
    assert "9 items: 2 passed, 3 failed, 1 error, 1 filtered, 1 skipped, 1 invalid case files." in markdown
    assert "#### Regressed items (2)" in markdown and "| fake | 5 | 0 | 2 |" in markdown
    assert "#### Aggregate gates (1 passed, 1 failed)" in markdown
    assert "#### Case files that could not be loaded (1)" in markdown and "#### Failed (3)" in markdown
    assert "#### Errors (1)" in markdown
    assert (
        "**Failed**: 1 item over its thresholds, 2 items regressed against the baseline, 1 aggregate gate failed, "
        "1 error, 1 case file that could not be loaded."
    ) in markdown.splitlines()
    assert "- **Thresholds** on 6 of 8 items." in markdown and "- **Aggregate gates**: 2 (per engine)." in markdown
    md_table = dict(re.findall(r"^\| (cases|passed|failed|errors|filtered|skipped) \| (\d+) \|", markdown, re.M))
    assert md_table == table

    # GitHub annotations: one per failed gate, invalid file, failed and errored item
    annotations = [line for line in out if line.startswith("::error ")]
    assert len(annotations) == len(failed_gates) + outcomes["invalid"] + outcomes["failed"] + outcomes["error"]

    # JUnit XML: every test pytest counted, with the metrics the report has
    junit = ET.parse(pytester.path / "junit.xml").getroot()
    cases = junit.iter("testcase")
    properties = {case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")} for case in cases}
    assert len(properties) == len(report["results"]) + len(report["gates"])
    bad = next(r for r in report["results"] if r["case"] == "bad")
    assert float(properties["bad[fake]"]["ocr.cer"]) == bad["metrics"]["cer"]

    # the HTML report
    tree = Tree((pytester.path / "head.html").read_text(encoding="utf-8"))
    header = tree.root.find("p", cls="counts").text()
    assert "9 items: 2 passed 3 failed 1 error 1 filtered 1 skipped 1 invalid case file" in " ".join(header.split())
    assert len(embedded(tree)["cases"]) == len(report["results"]) - outcomes["invalid"]
    rows = {
        r.find_all("th")[0].text(): [td.text() for td in r.find_all("td")]
        for r in tree.root.find("table", cls="summary").find("tbody").find_all("tr")
    }
    assert {k: rows[k][0] for k in table} == table
    # the same metrics in the terminal, the Markdown and the HTML summary tables
    metric_rows = re.compile(r"^(?:\| )?([a-z_]+ (?:macro|micro))\b", re.M)
    terminal_metrics = [m for line in out[start:end] if "CI" not in line for m in metric_rows.findall(line)]
    assert terminal_metrics == ["cer macro", "cer micro", "wer macro", "wer micro"]
    assert metric_rows.findall(markdown.split("macro = mean")[0].split("| engine |")[1]) == terminal_metrics
    html_metrics = [k.split(" (")[0] for k in rows if re.fullmatch(r"[a-z_]+ (macro|micro)", k.split(" (")[0])]
    assert html_metrics == terminal_metrics

    # the results directory holds the report's records and summary
    [run_dir] = (pytester.path / "out").iterdir()
    assert json.loads((run_dir / "results.json").read_text())["results"] == report["results"]
    assert json.loads((run_dir / "summary.json").read_text())["summary"] == report["summary"]

    # --ocr-summary json is the report's summary and gates
    as_json = pytester.runpytest(
        "-p", "no:cacheprovider", "--ocr-no-cache", "--ocr-baseline", "base.json", "--ocr-summary", "json", *gates
    ).stdout.str()
    printed = json.loads(as_json[as_json.index("{", as_json.index("OCR summary")) : as_json.rindex("}") + 1])
    assert printed["gates"] == report["gates"]
    strip = lambda s: {k: v for k, v in s.items() if k != "performance"}  # noqa: E731 - engine times vary
    assert {e: strip(s) for e, s in printed["summary"].items()} == {e: strip(s) for e, s in report["summary"].items()}

    # compare of the two reports counts the same regressed items
    compared = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "compare", "base.json", "head.json"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
    )
    assert "regressed items (2; " in compared.stdout, compared.stdout
    lines = compared.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("regressed items"))
    listed = [line.split()[0].rstrip(":") for line in lines[start + 1 : start + 3]]
    assert listed == terminal_regressed
