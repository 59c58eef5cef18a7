"""Under GitHub Actions: ::error annotations at each failing case's file and line, and
a Markdown step summary with the engines, the deltas against the baseline and the gates."""

from __future__ import annotations

from test_plugin import run

pytest_plugins = ["pytester"]


def test_annotations_and_step_summary(suite, monkeypatch):
    summary = suite.path / "summary.md"
    suite.image("good.tif", "abcdefghij")
    suite.image("bad.tif", "abcdefghXX")
    suite.image("crash.tif", None)  # the sidecar engine raises for this one
    suite.write(
        "s.ocr.yaml",
        """aggregate: {cer.macro: "< 0.01"}
cases:
  - {id: good, image: good.tif, expected: {text: abcdefghij}, thresholds: {cer: "<= 0.1"}}
  - {id: bad, image: bad.tif, expected: {text: abcdefghij}, thresholds: {cer: "< 0.1"}}
  - {id: crash, image: crash.tif, expected: {text: abcdefghij}}
""",
    )
    run(suite, "--ocr-report", "base.json")
    suite.image("good.tif", "abcdefghiX")  # a regression against the baseline, within its threshold
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    summary.write_text("earlier step's summary\n")
    result = run(suite, "--ocr-baseline", "base.json")
    result.assert_outcomes(passed=0, failed=3, errors=1)
    out = result.stdout.lines
    # line 3 is the "good" case, 4 "bad", 5 "crash"; ":" and "," in values are escaped
    assert (
        "::error file=s.ocr.yaml,line=3,title=OCR failed%3A good on fake::"
        "cer: 0 -> 0.1 (+0.1; lower is better; tolerance 0): REGRESSED"
    ) in out
    # the same message as the failure text: the one predicate that decided
    assert "::error file=s.ocr.yaml,line=4,title=OCR failed%3A bad on fake::cer = 0.2, expected < 0.1: FAILED" in out
    crash = next(line for line in out if line.startswith("::error file=s.ocr.yaml,line=5,"))
    assert "engine crashed on crash.tif" in crash and "\n" not in crash
    gate = next(line for line in out if "title=OCR gate%3A fake%3A cer.macro < 0.01" in line)
    assert gate.startswith("::error file=") and "s.ocr.yaml,line=1," in gate
    text = summary.read_text()
    assert text.startswith("earlier step's summary\n### OCR results")  # appended, not overwritten
    assert "#### Compared with the baseline" in text and "#### Aggregate gates (0 passed, 1 failed)" in text
    assert "s.ocr.yaml::bad\\[fake\\]" in text and "s.ocr.yaml::crash\\[fake\\]" in text  # [ ] escaped for Markdown


def test_nothing_for_github_outside_github_actions(suite, monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    summary = suite.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    suite.image("bad.tif", "abcdefghXX")
    suite.write("s.ocr.yaml", "image: bad.tif\nexpected: {text: abcdefghij}\nthresholds: {cer: '< 0.1'}\n")
    result = run(suite)
    assert not any(line.startswith("::error") for line in result.stdout.lines)
    assert not summary.exists()
