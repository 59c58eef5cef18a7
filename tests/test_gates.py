"""Aggregate gates: judged on the controller after every item ran, reported as tests of
their own (terminal, exit status, JSON report, JUnit XML), with a minimum-count rule.

The sidecar engine (conftest.py) returns exactly the text we give each image, so
every CER here is worked out by hand: "abcdefghij" read as "abcdefghiX" is 1/10.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from conftest import load_report, run

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

# Three cases with CER 0 (0 of 10), 1/10 and 4/10: macro 5/30 = 0.1666..., micro 5/30 too
# (equal lengths), so one receipt with 20 characters makes macro and micro differ.
SUITE = """
defaults: {tags: [pages]}
aggregate:
  cer.micro: "< 0.2"
  cer.macro: "< 0.1"
  "tag:receipts":
    wer.macro: "<= 1"
  min_cases: 2
cases:
  - {id: a, image: a.tif, expected: {text: abcdefghij}}
  - {id: b, image: b.tif, expected: {text: abcdefghij}}
  - {id: c, image: c.tif, expected: {text: abcdefghij}, tags: [receipts]}
"""


def three_cases(suite):
    suite.image("a.tif", "abcdefghij")
    suite.image("b.tif", "abcdefghiX")
    suite.image("c.tif", "abcdefXXXX")
    suite.write("s.ocr.yaml", SUITE)


def test_gates_are_tests_of_their_own_everywhere(suite):
    three_cases(suite)
    result = run(suite, "--ocr-report", "report.json", "--junitxml", "junit.xml")
    # 3 items pass; the macro gate and the receipts gate (1 case, min_cases 2) fail
    result.assert_outcomes(passed=4, failed=2)
    assert result.ret == 1
    out = result.stdout.str()
    micro = 5 / 30
    assert f"fake: cer.micro = {micro:.4f} over 3 case(s), expected < 0.2: ok (declared at s.ocr.yaml:" in out
    assert f"fake: cer.macro = {(0 + 0.1 + 0.4) / 3:.4f} over 3 case(s), expected < 0.1: FAILED" in out
    assert "fake: tag:receipts wer.macro: FAILED: only 1 case(s) with wer (min_cases 2)" in out
    assert "aggregate gates (3, 2 failed):" in out
    result.stdout.fnmatch_lines(["FAILED ocr-gates::fake: cer.macro < 0.1*"])
    report = load_report(suite)
    gates = {g["name"]: g for g in report["gates"]}
    assert gates["fake: cer.micro < 0.2"]["passed"] and gates["fake: cer.micro < 0.2"]["value"] == micro
    assert not gates["fake: cer.macro < 0.1"]["passed"] and gates["fake: cer.macro < 0.1"]["cases"] == 3
    assert gates["fake: tag:receipts wer.macro <= 1"]["value"] is None
    assert gates["fake: cer.macro < 0.1"]["gate"]["source"] == "s.ocr.yaml:5"  # as reports name files
    # JUnit XML: each gate is a test case, each item carries its metrics as properties
    tree = ET.parse(suite.path / "junit.xml")
    cases = {c.get("name"): c for c in tree.iter("testcase")}
    assert cases["fake: cer.macro < 0.1"].find("failure") is not None
    assert cases["fake: cer.micro < 0.2"].find("failure") is None
    properties = {p.get("name"): p.get("value") for p in cases["b[fake]"].iter("property")}
    assert float(properties["ocr.cer"]) == 0.1


def test_the_same_gates_under_xdist(suite):
    three_cases(suite)
    serial = run(suite, "--ocr-report", "serial.json")
    parallel = run(suite, "-n", "2", "--ocr-report", "parallel.json")
    assert serial.ret == parallel.ret == 1
    parallel.assert_outcomes(passed=4, failed=2)
    assert load_report(suite, "serial.json")["gates"] == load_report(suite, "parallel.json")["gates"]


def test_k_subsets_and_the_minimum_count(suite):
    three_cases(suite)
    # Only "c" runs (-m receipts): its file's gates are judged on what ran, and each
    # has 1 case against min_cases 2.
    result = run(suite, "-m", "receipts", "--ocr-report", "report.json")
    result.assert_outcomes(passed=1, failed=3)
    out = result.stdout.str()
    assert "fake: cer.micro: FAILED: only 1 case(s) with cer (min_cases 2)" in out
    assert "fake: cer.macro: FAILED: only 1 case(s) with cer (min_cases 2)" in out
    # a file none of whose items ran has its gates skipped (they are learned from the items' reports)
    result = run(suite, "-k", "nothing-matches")
    assert result.ret == 5 and "aggregate gates" not in result.stdout.str()


def test_command_line_and_project_gates(suite):
    three_cases(suite)
    suite.write(
        "ocr-config.yaml",
        """
engines: {fake: {type: python, function: sidecar_engine:read}}
defaults: {engine: fake}
aggregate:
  "engine:fake":
    cer.micro: "< 0.5"
  "engine:other":
    cer.micro: "< 0.5"
""",
    )
    suite.write(
        "s.ocr.yaml", SUITE.replace("aggregate:", "unused:").split("unused:")[0] + SUITE.split("min_cases: 2\n")[1]
    )
    result = run(suite, "--ocr-gate", "cer.micro<0.1", "--ocr-gate", "tag:receipts cer.macro >= 0.4")
    out = result.stdout.str()
    assert "fake: cer.micro = 0.5 over 3 case(s)" not in out  # micro is 5/30
    # rounded for people: 5/30 = 0.1667; the gates file named relative to the project
    assert "fake: cer.micro = 0.1667 over 3 case(s), expected < 0.1: FAILED (declared at --ocr-gate)" in out
    assert "fake: tag:receipts cer.macro = 0.4000 over 1 case(s), expected >= 0.4: ok (declared at --ocr-gate)" in out
    assert "fake: cer.micro = 0.1667 over 3 case(s), expected < 0.5: ok (declared at " in out
    # an engine-scoped gate whose engine ran nothing fails rather than passing on nothing
    assert "other: cer.micro: FAILED: only 0 case(s) with cer (min_cases 1)" in out
    result.assert_outcomes(passed=5, failed=2)

    bad = run(suite, "--ocr-gate", "cer.mikro<0.1")
    assert bad.ret == 4 and "--ocr-gate 'cer.mikro<0.1': a gate is METRIC.macro or METRIC.micro" in bad.stderr.str()
    bad = run(suite, "--ocr-gate", "cerr.micro<0.1")
    assert bad.ret == 4 and "unknown metric 'cerr'" in bad.stderr.str()


def test_gate_mistakes_are_located(suite):
    suite.image("a.tif", "x")
    suite.write(
        "s.ocr.yaml",
        """aggregate:
  cer.mikro: "< 0.1"
  cerr.micro: "< 0.1"
  wer.macro: "<< 1"
  min_cases: 0
  "tag:x":
    "engine:y":
      cer.micro: "< 1"
cases:
  - {id: a, image: a.tif, expected: {text: x}}
""",
    )
    result = run(suite)
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "s.ocr.yaml:2: aggregate.cer.mikro: a gate is METRIC.macro or METRIC.micro" in out
    assert "s.ocr.yaml:3: aggregate.cerr.micro: unknown metric 'cerr'" in out
    assert "s.ocr.yaml:4: aggregate.wer.macro: threshold for 'wer.macro' is '<< 1'" in out
    assert "s.ocr.yaml:5: aggregate.min_cases: min_cases must be a whole number of 1 or more, not 0" in out
    assert "s.ocr.yaml:7: aggregate.tag:x.engine:y: scope 'engine:y' inside tag:x" in out


def test_a_project_gate_fails_when_no_ocr_item_ran(suite):
    suite.pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = run(suite, "--ocr-gate", "cer.micro<0.1", "--ocr-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    assert "(no engine): cer.micro: FAILED: no OCR item ran" in result.stdout.str()
    assert json.loads((suite.path / "report.json").read_text())["gates"][0]["passed"] is False
