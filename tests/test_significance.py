"""Rules and gates with a confidence tell a real regression from noise, end to end: real
pytest sessions write the reports (the sidecar engine "reads" the texts we give it), and
``pytest-ocr compare`` and ``--ocr-baseline`` judge them.

Each page's reference is 50 characters; a run's text for a page has some characters
replaced. Noise: every run draws each page's number of wrong characters afresh from the
same distribution (0 to 3), so the runs differ page by page and not on average. A
regression: the same draws with one more wrong character on every page (+0.02 CER).
"""

from __future__ import annotations

import json
import random

import pytest
from conftest import run

from pytest_ocr.cli import main

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

REFERENCE = "The quick brown fox jumps over the lazy dog 0123456"[:50]
PAGES = 40


def _text(wrong: int) -> str:
    return "#" * wrong + REFERENCE[wrong:]


def _write_run(suite, name: str, seed: int, extra: int = 0, config: str = "") -> None:
    rng = random.Random(seed)
    lines = [config, "cases:"]
    for page in range(PAGES):
        suite.image(f"p{page}.tif", _text(rng.randint(0, 3) + extra))
        lines.append(f"  - {{id: p{page}, image: p{page}.tif, expected: {{text: '{REFERENCE}'}}}}")
    suite.write("s.ocr.yaml", "\n".join(lines) + "\n")
    run(suite, "--ocr-no-cache", "--ocr-report", name)


def _compare(suite, capsys, head: str, rule: str) -> tuple[int, dict]:
    capsys.readouterr()  # what the pytest sessions printed
    code = main(["compare", str(suite.path / "base.json"), str(suite.path / head), "--fail-on", rule, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_plain_rule_flaps_on_noise_the_confident_rule_does_not_and_catches_a_regression(suite, capsys):
    _write_run(suite, "base.json", seed=1)
    for seed in range(2, 8):
        _write_run(suite, f"noise{seed}.json", seed=seed)
    _write_run(suite, "worse.json", seed=8, extra=1)

    plain = [_compare(suite, capsys, f"noise{seed}.json", "cer.macro:+0.002")[0] for seed in range(2, 8)]
    # the same commit's noise passes and fails the plain rule
    assert 0 in plain and 1 in plain, plain
    for seed in range(2, 8):
        code, report = _compare(suite, capsys, f"noise{seed}.json", "cer.macro:+0.002@95%")
        [decision] = report["decisions"]
        assert code == 0 and not decision["violated"], decision
        assert decision["paired"]["low"] <= 0.002 and decision["paired"]["n"] == PAGES  # it reaches the tolerance
    code, report = _compare(suite, capsys, "worse.json", "cer.macro:+0.002@95%")
    [decision] = report["decisions"]
    assert code == 1 and decision["violated"]
    assert decision["paired"]["low"] > 0.002  # the whole interval of the worsening above the tolerance
    assert decision["paired"]["change"] > 0.01
    [violation] = report["violations"]
    assert (
        violation["rule"] == "cer.macro:+0.002@95%"
        and "REGRESSED (the interval of the worsening" in violation["message"]
    )
    # the text output says what the items can tell from noise
    capsys.readouterr()
    main(["compare", str(suite.path / "base.json"), str(suite.path / "worse.json")])
    out = capsys.readouterr().out
    assert "cer macro" in out and "cannot be told from noise at 95% with these 40 items" in out


def test_gates_against_the_baseline_from_the_command_line_and_from_defaults(suite):
    _write_run(suite, "base.json", seed=1)
    _write_run(suite, "noise.json", seed=2, config='defaults:\n  regression: {cer.micro: "0.002@95%"}')
    result = run(suite, "--ocr-baseline", "base.json", "--ocr-gate", "cer.macro:+0.002@95%", "--ocr-report", "h.json")
    out = result.stdout.str()
    result.assert_outcomes(passed=PAGES + 2)  # both gates pass on noise, each a test of its own
    assert "fake: cer.macro against the baseline: 0.0300 -> " in out  # the first run's CER is the same
    gates = {g["name"]: g for g in json.loads((suite.path / "h.json").read_text())["gates"]}
    macro = gates["fake: cer.macro:+0.002@95% against the baseline"]
    micro = gates["fake: cer.micro:+0.002@95% against the baseline"]
    assert macro["gate"]["source"] == "--ocr-gate" and micro["gate"]["source"] == "s.ocr.yaml:2"
    assert macro["paired"]["n"] == PAGES and micro["paired"]["kind"] == "micro"
    assert ": ok (not decided: the interval of the worsening, " in macro["message"]  # noise reaches either side

    _write_run(suite, "worse.json", seed=3, extra=1, config='defaults:\n  regression: {cer.micro: "0.002@95%"}')
    result = run(suite, "--ocr-baseline", "base.json", "--ocr-gate", "cer.macro:+0.002@95%")
    result.assert_outcomes(passed=PAGES, failed=2)
    assert "REGRESSED (the interval of the worsening" in result.stdout.str()


def test_a_gate_against_a_baseline_needs_one_and_an_aggregate_tolerance_needs_a_suite(suite):
    _write_run(suite, "base.json", seed=1)
    result = run(suite, "--ocr-gate", "cer.macro:+0.002@95%")
    assert result.ret == 4
    assert "compares with a baseline: give --ocr-baseline PATH" in result.stderr.str()
    # an item's confidence is read from its repeats (tests/test_noise.py); an aggregate's belongs to a suite
    suite.write(
        "s.ocr.yaml",
        'cases:\n  - {id: p0, image: p0.tif, expected: {text: abc}, regression: {cer: "0.01@95%", cer.macro: 0.01}}\n',
    )
    result = run(suite)
    out = result.stdout.str()
    assert "s.ocr.yaml:2: cases[0].regression.cer.macro: 'cer.macro' is an aggregate's tolerance" in out
    assert "1 problem" in out and "cer: " not in out.split("1 problem")[1].split("\n")[1]
