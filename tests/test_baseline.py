"""Baselines: comparing each item with a stored run, tolerances, and the verbs that write one.

The sidecar engine returns exactly the text we give each image: against "abcdefghij"
the texts below have a CER of 0 ("abcdefghij"), 1/10 ("abcdefghiX"), 2/10
("abcdefghXX") and 3/10 ("abcdefgXXX").
"""

from __future__ import annotations

import json

import pytest
from conftest import load_report, run

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

TEXT = {0: "abcdefghij", 1: "abcdefghiX", 2: "abcdefghXX", 3: "abcdefgXXX"}


def write_suite(suite, errors: dict[str, int], extra: str = "") -> None:
    """One case per entry, reading a text with that many errors; thresholds cer < 0.5."""
    lines = ["defaults:", '  thresholds: {cer: "< 0.5"}', "cases:"]
    for case, n in errors.items():
        suite.image(f"{case}.tif", TEXT[n])
        lines.append(f"  - {{id: {case}, image: {case}.tif, expected: {{text: abcdefghij}}{extra}}}")
    suite.write("s.ocr.yaml", "\n".join(lines) + "\n")


def records(suite, name: str) -> dict:
    return {r["case"]: r for r in json.loads((suite.path / name).read_text())["results"]}


def test_items_worse_than_the_baseline_fail_new_ones_do_not(suite):
    write_suite(suite, {"same": 1, "worse": 1, "better": 2, "tolerated": 1})
    run(suite, "--ocr-report", "base.json").assert_outcomes(passed=4)
    write_suite(suite, {"same": 1, "worse": 2, "better": 1, "tolerated": 2, "new": 3})
    text = (
        (suite.path / "s.ocr.yaml")
        .read_text()
        .replace(
            "{id: tolerated, image: tolerated.tif, expected: {text: abcdefghij}}",
            "{id: tolerated, image: tolerated.tif, expected: {text: abcdefghij}, regression: {cer: 0.1}}",
        )
    )
    suite.write("s.ocr.yaml", text)
    result = run(suite, "--ocr-baseline", "base.json", "--ocr-report", "head.json")
    result.assert_outcomes(passed=4, failed=1)
    out = result.stdout.str()
    assert "worse on fake: worse than the baseline (" in out  # its thresholds still pass
    assert "baseline: cer: 0.1000 -> 0.2000 (+0.1000; lower is better; tolerance 0): REGRESSED" in out
    head = records(suite, "head.json")
    assert head["worse"]["outcome"] == "failed" and head["worse"]["baseline"]["regressed"]
    assert head["tolerated"]["baseline"]["deltas"][0]["verdict"] == "worse"  # +0.1 within 0.1
    assert head["better"]["baseline"]["deltas"][0]["verdict"] == "better"
    assert head["same"]["baseline"]["deltas"][0]["verdict"] == "same"
    assert head["new"]["baseline"] == {"status": "new", "deltas": [], "lost_facts": [], "regressed": False}
    assert "fake: 4 compared, 1 new, 1 regressed" in out
    # means over the 4 compared cases: (0.1+0.1+0.2+0.1)/4 -> (0.1+0.2+0.1+0.2)/4; the changes
    # (0, +0.1, -0.1, +0.1) with their signs flipped in all 16 ways give a sum of at least the
    # observed 0.1 in 8 and at most it in 14: p = 2 * 8/16 = 1. Equal lengths: micro = macro.
    for kind in ("macro", "micro"):
        assert f"    cer.{kind}: 0.1250 -> 0.1500 (+0.0250; 95% interval " in out
    assert out.count("p = 1, n = 4); a worsening below ") == 2
    assert "      cer worse by 0.1000 beyond 0  s.ocr.yaml::worse[fake]" in out.splitlines()
    load_report(suite, "head.json")  # valid against the report schema


def test_relative_tolerances_and_higher_is_better_metrics(suite):
    write_suite(suite, {"a": 2, "b": 2}, extra=", metrics: [char_accuracy]")
    run(suite, "--ocr-report", "base.json").assert_outcomes(passed=2)
    # char_accuracy 0.8 -> 0.7: worse by 0.1, which is 12.5 % of 0.8
    suite.write(
        "s.ocr.yaml",
        """cases:
  - {id: a, image: a.tif, expected: {text: abcdefghij}, regression: {char_accuracy: "15%"}}
  - {id: b, image: b.tif, expected: {text: abcdefghij}, regression: {char_accuracy: "10%"}}
""",
    )
    suite.image("a.tif", TEXT[3])
    suite.image("b.tif", TEXT[3])
    result = run(suite, "--ocr-baseline", "base.json")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*char_accuracy: 0.8000 -> 0.7000 (-0.1000; higher is better; tolerance 10%): REGRESSED*"]
    )


def test_verbs_write_only_what_they_say_and_never_deselected_items(suite):
    write_suite(suite, {"a": 1, "b": 1, "c": 1})
    # create: a missing file is created with every item
    result = run(suite, "--ocr-baseline", "base.json", "--ocr-baseline-write", "create")
    result.assert_outcomes(passed=3)
    assert "OCR baseline create: " in result.stdout.str() and "3 added, 0 replaced, 0 kept" in result.stdout.str()
    assert {k: r["metrics"]["cer"] for k, r in records(suite, "base.json").items()} == {"a": 0.1, "b": 0.1, "c": 0.1}
    load_report(suite, "base.json")

    # a got better, b worse, c the same, d is new
    write_suite(suite, {"a": 0, "b": 2, "c": 1, "d": 3})
    run(suite, "--ocr-baseline", "base.json", "--ocr-baseline-write", "create").assert_outcomes(passed=3, failed=1)
    assert {k: r["metrics"]["cer"] for k, r in records(suite, "base.json").items()} == {
        "a": 0.1,
        "b": 0.1,
        "c": 0.1,
        "d": 0.3,
    }  # only d was added

    # ratchet: a improved (taken), b got worse (kept), c unchanged (kept)
    result = run(suite, "--ocr-baseline", "base.json", "--ocr-baseline-write", "ratchet")
    result.assert_outcomes(passed=3, failed=1)  # b still fails against the old baseline
    assert "0 added, 1 replaced, 3 kept" in result.stdout.str()
    assert {k: r["metrics"]["cer"] for k, r in records(suite, "base.json").items()} == {
        "a": 0.0,
        "b": 0.1,
        "c": 0.1,
        "d": 0.3,
    }

    # update, only for the items that ran (-k b): b's regression is accepted, nothing else touched
    result = run(suite, "--ocr-baseline", "base.json", "--ocr-baseline-write", "update", "-k", "b")
    result.assert_outcomes(passed=1)  # update accepts: the regression does not fail
    assert "0 added, 1 replaced, 0 kept" in result.stdout.str()
    assert {k: r["metrics"]["cer"] for k, r in records(suite, "base.json").items()} == {
        "a": 0.0,
        "b": 0.2,
        "c": 0.1,
        "d": 0.3,
    }
    # and now nothing regresses
    run(suite, "--ocr-baseline", "base.json").assert_outcomes(passed=4)


def test_a_changed_engine_configuration_is_named(suite):
    write_suite(suite, {"a": 1})
    run(suite, "--ocr-report", "base.json").assert_outcomes(passed=1)
    suite.write(
        "ocr-config.yaml",
        """
engines:
  fake: {type: python, function: sidecar_engine:read, kwargs: {}}
defaults: {engine: fake}
""".replace("kwargs: {}", "kwargs: {}"),
    )
    suite.pytester.makepyfile(
        sidecar_engine="""
from pathlib import Path

def read(image_path, mode="plain"):
    return Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
"""
    )
    suite.write(
        "ocr-config.yaml",
        """
engines:
  fake: {type: python, function: sidecar_engine:read, kwargs: {mode: fancy}}
defaults: {engine: fake}
""",
    )
    result = run(suite, "--ocr-baseline", "base.json")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["*warning: the baseline was recorded with another fake configuration: *config.kwargs*"]
    )


def test_bad_baseline_files_are_usage_errors(suite):
    write_suite(suite, {"a": 1})
    result = run(suite, "--ocr-baseline", "missing.json")
    assert result.ret == 4 and "--ocr-baseline: " in result.stderr.str() and "missing.json" in result.stderr.str()
    suite.write("bad.json", '{"results": 3}')
    result = run(suite, "--ocr-baseline", "bad.json")
    assert result.ret == 4 and "bad.json" in result.stderr.str()
    result = run(suite, "--ocr-baseline-write", "update")
    assert result.ret == 4 and "--ocr-baseline-write needs --ocr-baseline PATH" in result.stderr.str()


def test_baseline_comparison_is_the_same_under_xdist(suite):
    write_suite(suite, {"a": 1, "b": 1, "c": 2, "d": 1})
    run(suite, "--ocr-report", "base.json").assert_outcomes(passed=4)
    write_suite(suite, {"a": 2, "b": 0, "c": 2, "d": 1})
    serial = run(suite, "--ocr-baseline", "base.json", "--ocr-report", "serial.json")
    parallel = run(suite, "-n", "2", "--ocr-baseline", "base.json", "--ocr-report", "parallel.json")
    serial.assert_outcomes(passed=3, failed=1)
    parallel.assert_outcomes(passed=3, failed=1)
    keep = ("id", "outcome", "metrics", "baseline")
    assert [{k: r[k] for k in keep} for r in load_report(suite, "serial.json")["results"]] == [
        {k: r[k] for k in keep} for r in load_report(suite, "parallel.json")["results"]
    ]


def test_the_controller_writes_the_baseline_under_xdist(suite):
    write_suite(suite, {"a": 1, "b": 2, "c": 0, "d": 3})
    run(suite, "--ocr-baseline", "serial.json", "--ocr-baseline-write", "create").assert_outcomes(passed=4)
    run(suite, "-n", "2", "--ocr-baseline", "parallel.json", "--ocr-baseline-write", "create").assert_outcomes(passed=4)
    keep = ("id", "outcome", "metrics", "prediction", "fingerprint_id")
    serial, parallel = load_report(suite, "serial.json"), load_report(suite, "parallel.json")
    assert [{k: r[k] for k in keep} for r in serial["results"]] == [
        {k: r[k] for k in keep} for r in parallel["results"]
    ]
    assert len(parallel["results"]) == 4 and serial["engines"] == parallel["engines"]
