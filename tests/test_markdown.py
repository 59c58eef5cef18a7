"""Markdown for PR comments and job summaries, from reports made by the real plugin,
rendered by GitHub's own Markdown implementation (cmark-gfm, through cmarkgfm) to
check that hostile OCR text stays text."""

from __future__ import annotations

import copy
import dataclasses
import os
import shutil
import subprocess
import sys

import pytest
from conftest import DATA, INI, SIDECAR_ENGINE
from helpers.markdown import assert_inert, render
from helpers.runs import make_runs

from pytest_ocr.cases.gates import Gate
from pytest_ocr.cases.rules import Tolerance, parse
from pytest_ocr.report.markdown import MAX_BYTES, comparison_markdown, escape, failures, run_markdown
from pytest_ocr.report.reasons import check_text, delta_text
from pytest_ocr.run.gates import GateResult, judge
from pytest_ocr.run.record import Gating, RunRecord
from pytest_ocr.run.rules import compare, parse_rules
from pytest_ocr.run.stored import load_report
from pytest_ocr.scoring.thresholds import Check
from pytest_ocr.scoring.tolerance import Delta


def load(path) -> RunRecord:
    return RunRecord.from_document(load_report(path))


pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

# Everything Markdown or HTML could act on, on one line, as an OCR service might return it.
HOSTILE = (
    "<img src=x onerror=alert(1)> <script>alert(1)</script> | `rm -rf /` | **bold** _it_ "
    "[link](javascript:alert(1)) ~~del~~ $x^2$ @octocat #1 \\| &amp; <!-- c --> <details>"
)

# An engine that returns the side-car text, or raises with it after "raise:".
EVIL_ENGINE = """
from pathlib import Path

def read(image_path, **options):
    text = Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
    if text.startswith("raise:"):
        raise RuntimeError(text[len("raise:"):])
    return text
"""
EVIL_CONFIG = """
engines:
  evil: {{type: python, function: evil:read, kwargs: {kwargs}}}
defaults:
  engine: evil
"""
# A looping output: the repetition warning quotes the looping unit, OCR text.
LOOPING = "Total 12.00 " + "<b>|`x`</b> " * 12


def seen(text: str) -> str:
    """What a reader sees: the zero-width space that keeps @mentions inert is invisible."""
    return text.replace("\u200b", "")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return make_runs(tmp_path_factory.mktemp("runs"))


@pytest.fixture
def hostile(suite):
    """BASE: the evil engine reads fine; HEAD: it raises with HOSTILE, and its options
    carry HOSTILE into its fingerprint. Both have an item whose output loops."""
    suite.pytester.makepyfile(evil=EVIL_ENGINE)
    suite.write(
        "s.ocr.yaml",
        """cases:
  - {id: victim, image: victim.tif, expected: {text: hello}}
  - {id: looping, image: looping.tif, expected: {text: Total 12.00}}
""",
    )
    reports = {}
    for name, victim, kwargs in (
        ("base.json", "hello", "{}"),
        ("head.json", "raise:" + HOSTILE, "{note: '" + HOSTILE.replace("'", "''") + "'}"),
    ):
        suite.write("ocr-config.yaml", EVIL_CONFIG.format(kwargs=kwargs))
        suite.image("victim.tif", victim)
        suite.image("looping.tif", LOOPING)
        suite.pytester.runpytest("-p", "no:cacheprovider", "--ocr-no-cache", "--ocr-report", name)
        reports[name] = load(suite.path / name)
    return reports["base.json"], reports["head.json"]


# -- escaping -------------------------------------------------------------------------------


def test_escape_by_hand():
    assert escape("a|b`c<script>&x") == "a\\|b\\`c&lt;script&gt;&amp;x"
    assert escape("*b* _i_ [l](u) ~s~ $m$ #h !i \\") == "\\*b\\* \\_i\\_ \\[l\\](u) \\~s\\~ \\$m\\$ \\#h \\!i \\\\"
    assert escape("@octocat") == "@\u200boctocat"
    # line breaks, tabs, a terminal escape and a right-to-left override shown as their escapes
    # (the backslash escaped for Markdown), so the cell reads as what the engine sent
    assert escape("line 1\nline 2\r\tend") == "line 1\\\\nline 2\\\\r\\\\tend"
    assert escape("\x1b[31m\u202eevil") == "\\\\x1b\\[31m\\\\u202eevil"
    assert "".join(render(escape("\x1b[31m\u202eevil\n::error::x")).text).strip() == "\\x1b[31m\\u202eevil\\n::error::x"
    assert escape("x" * 300, limit=10) == "x" * 9 + "…"
    assert escape("&lt;") == "&amp;lt;"  # an entity in OCR text shows as written


def test_hostile_text_renders_as_itself_in_the_run_summary(hostile):
    _, head = hostile
    markdown = run_markdown(head)
    assert "<script" not in markdown and "<img" not in markdown and "@octocat" not in markdown
    rendered = render(markdown)
    assert_inert(rendered)
    errors = next(t for t in rendered.tables if t[0] == ["item", "where", "error"])
    assert errors[1] == [
        "s.ocr.yaml::victim[evil]",
        "s.ocr.yaml:2",
        f"evil:read raised RuntimeError: {HOSTILE}".replace("@", "@\u200b"),
    ]
    warnings = next(t for t in rendered.tables if t[0] == ["item", "where", "warning"])
    assert warnings[1][0] == "s.ocr.yaml::looping[evil]"
    assert warnings[1][2] == (
        "repetition loop: the output's tail repeats ' <b>|`x`</b>' 12.0 times (132 redundant characters)"
    )


def test_hostile_text_renders_as_itself_in_the_comparison(hostile):
    base, head = hostile
    markdown = comparison_markdown(compare(base, head, parse_rules(["errors"])))
    rendered = render(markdown)
    assert_inert(rendered)
    text = seen("".join(rendered.text))
    # the violation, the outcome change and the fingerprint line each show the text as it is
    assert f"errors: s.ocr.yaml::victim[evil]: passed -> error: evil:read raised RuntimeError: {HOSTILE}" in text
    assert f"s.ocr.yaml::victim[evil]: passed → error: evil:read raised RuntimeError: {HOSTILE}" in text
    assert f"config.kwargs.note: added ({HOSTILE[:77]}...)" in text  # fingerprint lines cut values at 80


# -- the comparison section -----------------------------------------------------------------


def test_comparison_rows_from_hand_computed_values(runs):
    base, head = load(runs / "base.json"), load(runs / "head.json")
    markdown = comparison_markdown(compare(base, head, parse_rules(["cer:+0.05"])))
    lines = markdown.splitlines()
    assert lines[0] == "### OCR comparison: base → head"
    assert "**FAILED**: 1 rule violation (rules: cer:+0.05)." in lines
    assert (
        "- ❌ cer:+0.05: s.ocr.yaml::worse\\[fake\\]: cer: 0.1000 -&gt; 0.5000 (+0.4000; lower is better; tolerance "
        "0.05): REGRESSED"
    ) in lines
    # the values of test_compare's worked example, to 4 decimals, over the 3 items both runs
    # measured (worse, better, same), whose CER changed by +0.4, -0.1 and 0: cer macro 0.2/3 ->
    # 0.5/3, micro 2/31 -> 5/31 (+3/31 = 0.0968). Of 27 equally likely bootstrap samples, all three
    # "better" (1/27 = 3.7% > 2.5%) bound the interval at -0.1, all three "worse" at +0.4; every one
    # of the 8 sign flips is at least as far from 0 as +0.1: p = 1; the interval reaches 0.2 below
    # the estimate. Each run's own average follows, unpaired: 0.06 of 5 items, 0.15 of 4.
    for row in [
        "| cases | 5 | 6 | +1 |  |  |  |  |",
        "| passed | 4 | 3 | -1 |  |  |  |  |",
        "| failed | 1 | 1 | same |  |  |  |  |",
        "| errors | 0 | 2 | +2 |  |  |  |  |",
        "| cer macro | 0.0667 | 0.1667 | ▲ +0.1000 worse | +0.1000 [-0.1000, +0.4000] (95%, 3 items) | 1 | 0.2000 "
        "| 0.0600 (5) → 0.1500 (4) |",
        "| cer micro | 0.0645 | 0.1613 | ▲ +0.0968 worse | +0.0968 [-0.1000, +0.4000] (95%, 3 items) | 1 | 0.1968 "
        "| 0.0588 (5) → 0.1463 (4) |",
        "| char_accuracy macro | 0.9333 | 0.8333 | ▼ -0.1000 worse | -0.1000 [-0.4000, +0.1000] (95%, 3 items) | 1 "
        "| 0.2000 | 0.9400 (5) → 0.8500 (4) |",
        "| exact_match macro | 0.3333 | 0.6667 | ▲ +0.3333 better | +0.3333 [0.0000, +1.0000] (95%, 3 items) | 1 "
        "| 0.6667 | 0.4000 (5) → 0.5000 (4) |",
        "| s.ocr.yaml::worse\\[fake\\] | s.ocr.yaml:2 | cer 0.1000 → 0.5000 (▲ +0.4000 worse) | passed → failed "
        "| yes |",
        "No change: 1 item, the same counts and aggregates.",  # fake2
        "- s.ocr.yaml::crashes\\[fake\\]: passed → error: sidecar\\_engine:read raised RuntimeError: engine crashed "
        "on crashes.tif",
        "**Items:** 2 new, 1 removed (not compared), 5 in both.",
        "- fake2",
        "  - version: 1.0 -&gt; 1.1",
        "  - config.kwargs.variant: a -&gt; b",
    ]:
        assert row in lines, row
    assert_inert(render(markdown))


def test_comparison_lists_are_capped(runs):
    base, head = load(runs / "base.json"), load(runs / "head.json")
    markdown = comparison_markdown(compare(base, head, []), limit=1)
    assert "**Outcome changed (3)**" in markdown
    assert "- s.ocr.yaml::better\\[fake\\]: failed → passed\n… and 2 more" in markdown
    assert "worse\\[fake\\]: passed → failed" not in markdown
    assert "New: s.ocr.yaml::new-broken\\[fake\\] … and 1 more" in markdown


def test_no_rules_and_no_violations_say_so(runs):
    base = load(runs / "base.json")
    assert "No rules given (--fail-on) and no item regressed: changes are shown, nothing is gated." in (
        comparison_markdown(compare(base, base, [])).splitlines()
    )
    clean = comparison_markdown(compare(base, base, parse_rules(["cer:+0", "errors"])))
    assert "**No regression**: no rule violated (rules: cer:+0, errors)." in clean
    assert "Rule violations" not in clean and "Regressed items" not in clean


def test_the_verdict_counts_items_regressed_beyond_their_own_tolerances_whatever_the_rules(runs):
    # HEAD's "worse" item went from a CER of 0.1 to 0.2 against its threshold (< 0.15: no worse at all).
    base, head = load(runs / "base.json"), load(runs / "head.json")
    regressed = (
        "1 item regressed beyond the tolerances it compares (thresholds and regression: tolerances, as HEAD "
        "records them)"
    )

    def verdict(*rules: str) -> str:
        return comparison_markdown(compare(base, head, parse_rules(rules))).splitlines()[2]

    assert verdict() == f"**{regressed}.** No rules given (--fail-on), so this comparison fails on nothing."
    assert verdict("cer:+0.5") == f"No rule violated (rules: cer:+0.5), but **{regressed}**."
    assert verdict("errors") == f"**FAILED**: 1 rule violation (rules: errors); besides, {regressed}."
    assert verdict("cer:+0.05") == "**FAILED**: 1 rule violation (rules: cer:+0.05)."  # the rule names it already


# -- the run summary ------------------------------------------------------------------------


def test_run_summary_tables_gates_failures_and_errors(runs):
    head = load(runs / "head.json")
    fake = [r for r in head.results if r.engine == "fake"]
    declared = {"source": f"{runs}/s.ocr.yaml:3", "file": "s.ocr.yaml"}  # as the loader declares a suite's gates
    head.gates = [
        judge(Gate("cer", "macro", "<", 0.2, **declared), "fake", fake),
        judge(Gate("cer", "micro", "<", 0.03, **declared), "fake", fake),
    ]
    markdown = run_markdown(head, project=runs)
    lines = markdown.splitlines()
    # HEAD of the worked example: fake 6 items (3 passed, 1 failed, 2 errors), fake2 one passed item;
    # wer macro (1 + 0 + 0 + 1) / 4 = 0.5, micro 2 wrong words of 5 = 0.4
    for row in [
        "7 items: 4 passed, 1 failed, 2 errors.",
        "| engine | fake | fake2 |",
        "| cases | 6 | 1 |",
        "| errors | 2 | 0 |",
        "| cer macro | 0.1500 | 0.0000 |",
        "| cer micro | 0.1463 | 0.0000 |",
        "| wer macro | 0.5000 | 0.0000 |",
        "| wer micro | 0.4000 | 0.0000 |",
        "| char_accuracy macro | 0.8500 | 1.0000 |",  # asked for by name: shown as in the terminal
        "**What gated this run**",
        "- **Thresholds** on 7 of 7 items.",
        "- **Aggregate gates**: 2 (per engine).",
        "**Failed**: 1 item over its thresholds, 1 aggregate gate failed, 2 errors.",
        "#### Aggregate gates (1 passed, 1 failed)",
        # rounded, and where it was declared relative to the project, as every other path
        "| fake: cer.micro &lt; 0.03 | ❌ failed | fake: cer.micro = 0.1463 over 4 case(s), expected &lt; 0.03: FAILED "
        "(declared at s.ocr.yaml:3) |",
        "| fake: cer.macro &lt; 0.2 | ✅ passed | fake: cer.macro = 0.1500 over 4 case(s), expected &lt; 0.2: ok "
        "(declared at s.ocr.yaml:3) |",
        "#### Failed (1)",
        "| s.ocr.yaml::worse\\[fake\\] | s.ocr.yaml:2 | cer = 0.5000, expected &lt; 0.15: FAILED |",
        "#### Errors (2)",
    ]:
        assert row in lines, row
    failed_gate = next(i for i, line in enumerate(lines) if line.startswith("| fake: cer.micro &lt; 0.03 |"))
    passed_gate = next(i for i, line in enumerate(lines) if line.startswith("| fake: cer.macro &lt; 0.2 |"))
    assert failed_gate < passed_gate  # failures first
    # the default metrics that nothing asked for are left out, as in the terminal
    assert not any(line.startswith("| ned macro") for line in lines)
    rendered = render(markdown)
    assert_inert(rendered)
    errors = next(t for t in rendered.tables if t[0] == ["item", "where", "error"])
    assert errors[1:] == [
        [
            "s.ocr.yaml::crashes[fake]",
            "s.ocr.yaml:6",
            "sidecar_engine:read raised RuntimeError: engine crashed on crashes.tif",
        ],
        [
            "s.ocr.yaml::new-broken[fake]",
            "s.ocr.yaml:7",
            "sidecar_engine:read raised RuntimeError: engine crashed on broken.tif",
        ],
    ]


def test_run_summary_lists_are_capped(runs):
    head = load(runs / "head.json")
    markdown = run_markdown(head, limit=1)
    errors = markdown.split("#### Errors (2)\n")[1].splitlines()
    assert errors[1:3] == ["| item | where | error |", "|---|---|---|"]
    assert errors[3].startswith("| s.ocr.yaml::crashes\\[fake\\] |")
    assert errors[4] == "… and 1 more"
    assert "new-broken" not in errors


def test_run_summary_stays_under_the_step_summary_limit(hostile):
    _, head = hostile
    big = copy.deepcopy(head)
    error = next(r for r in big.results if r.outcome == "error")
    big.results += [
        dataclasses.replace(error, id=f"s.ocr.yaml::copy-{i:05d}[evil]", key=f"copy-{i}") for i in range(3000)
    ]
    markdown = run_markdown(big, limit=10**6)  # no list cap: only the byte limit holds it
    size = len(markdown.encode("utf-8"))
    assert size <= MAX_BYTES < 1024 * 1024
    last = markdown.rstrip("\n").splitlines()[-1]
    assert last.startswith("*Cut at 512 KiB: ") and last.endswith(
        " more lines left out (GitHub limits a step summary to 1 MiB).*"
    )
    assert "copy-00000" in markdown and "copy-02999" not in markdown
    assert_inert(render(markdown))


# -- what gated a run, and what failed it -----------------------------------------------------


def ci_step(root, *argv: str, summary=None) -> subprocess.CompletedProcess:
    """A command as a GitHub Actions step runs it: GITHUB_ACTIONS=true and the step summary set."""
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary or root / "summary.md")}
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=root, capture_output=True, text=True, encoding="utf-8", env=env, timeout=120
    )


def pytest_step(root, *args: str, summary=None) -> subprocess.CompletedProcess:
    return ci_step(root, "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args, summary=summary)


def test_a_run_gated_only_by_its_baseline_says_so_and_counts_what_regressed(tmp_path):
    # Twelve lines with no thresholds at all, only a tolerance against the baseline: a run
    # whose one gate is the baseline. Nine get worse by one character of ten, beyond the
    # tolerance; one item stops producing output.
    (tmp_path / "pytest.ini").write_text(INI, encoding="utf-8")
    (tmp_path / "sidecar_engine.py").write_text(SIDECAR_ENGINE, encoding="utf-8")
    (tmp_path / "ocr-config.yaml").write_text(
        "engines:\n  fake: {type: python, function: sidecar_engine:read}\ndefaults: {engine: fake}\n"
    )
    names = [f"line-{i:02d}" for i in range(12)] + ["crash"]
    cases = "".join(f"  - {{id: {n}, image: {n}.tif, expected: {{text: abcdefghij}}}}\n" for n in names)
    (tmp_path / "s.ocr.yaml").write_text(f"defaults: {{regression: {{cer: 0.01}}}}\ncases:\n{cases}")
    for name in names:
        shutil.copy(DATA / "pages/tess_phototest.tif", tmp_path / f"{name}.tif")
        (tmp_path / f"{name}.ocr.txt").write_text("abcdefghij", encoding="utf-8")
    base = pytest_step(tmp_path, "--ocr-report", "base.json", summary=tmp_path / "base-summary.md")
    assert base.returncode == 0, base.stdout

    for name in names[:9]:
        (tmp_path / f"{name}.ocr.txt").write_text("abcdefghiX", encoding="utf-8")
    (tmp_path / "crash.ocr.txt").unlink()
    summary = tmp_path / "summary.md"
    head = pytest_step(tmp_path, "--ocr-baseline", "base.json", "--ocr-report", "head.json", summary=summary)
    assert head.returncode == 1, head.stdout
    # as the README's workflow does it: the comparison appended to the same step summary, here with no --fail-on
    compared = ci_step(tmp_path, "pytest_ocr.cli", "compare", "base.json", "head.json", "--markdown")
    assert compared.returncode == 0, compared.stderr
    with summary.open("a", encoding="utf-8") as f:
        f.write(compared.stdout)
    lines = summary.read_text(encoding="utf-8").splitlines()

    for line in [
        "13 items: 3 passed, 9 failed, 1 error.",
        "**What gated this run**",
        "- **Baseline** base.json: 12 items compared with their records (each metric an item has a threshold or a "
        "regression: tolerance on); 0 new (not compared).",
        "**Failed**: 9 items regressed against the baseline, 1 error.",
        "| fake | 12 | 0 | 9 |",  # the baseline table: compared, new, regressed
        "**9 items regressed beyond the tolerances they compare (thresholds and regression: tolerances, as HEAD "
        "records them).** No rules given (--fail-on), so this comparison fails on nothing.",
    ]:
        assert line in lines, line
    assert not [line for line in lines if "othing gated" in line or "othing is gated" in line]
    assert_inert(render("\n".join(lines)))

    # A report read back has no baseline section, but its records say what they were compared with.
    stored = run_markdown(load(tmp_path / "head.json")).splitlines()
    assert (
        "- **Baseline** (a stored run): 12 items compared with their records (each metric an item has a threshold "
        "or a regression: tolerance on); 0 new (not compared)."
    ) in stored
    assert "**Failed**: 9 items regressed against the baseline, 1 error." in stored

    # Without the baseline nothing gates these items, and the summary says so, and that the error failed the run.
    alone = pytest_step(tmp_path, summary=tmp_path / "alone.md")
    assert alone.returncode == 1, alone.stdout
    text = (tmp_path / "alone.md").read_text(encoding="utf-8")
    assert (
        "**Nothing gated this run**: no thresholds, no baseline, no aggregate gates.\n\n**Failed**: 1 error.\n" in text
    )


def test_numbers_for_people_are_rounded_but_never_flip_a_verdict():
    below = parse("cer", "< 0.05")
    assert check_text(Check(below, 0.07258064516129033, False)) == "cer = 0.0726, expected < 0.05: FAILED"
    assert check_text(Check(below, 0.000123456, True)) == "cer = 0.000123, expected < 0.05: ok"
    # 0.05000001 rounds to the bound it failed: shown in full, so the comparison reads as it went
    assert check_text(Check(below, 0.05000001, False)) == "cer = 0.05000001, expected < 0.05: FAILED"
    assert check_text(Check(below, None, False)).startswith("cer: not computed")
    assert delta_text(Delta("cer", 0.1, 0.2, Tolerance(0.005))) == (
        "cer: 0.1000 -> 0.2000 (+0.1000; lower is better; tolerance 0.005): REGRESSED"
    )
    assert delta_text(Delta("field_f1", 0.9, 0.8, Tolerance(0.1, relative=True))) == (
        "field_f1: 0.9000 -> 0.8000 (-0.1000; higher is better; tolerance 10%): REGRESSED"
    )
    # worse by a hair more than the tolerance: the change in full, not "+0.0050; tolerance 0.005"
    change = 0.10500001 - 0.1
    assert delta_text(Delta("cer", 0.1, 0.10500001, Tolerance(0.005))) == (
        f"cer: 0.1000 -> 0.1050 (+{change!r}; lower is better; tolerance 0.005): REGRESSED"
    )
    assert delta_text(Delta("cer", 0.1, 0.1, Tolerance(0.005))) == (
        "cer: 0.1000 -> 0.1000 (0.0000; lower is better; tolerance 0.005): same"
    )


def test_items_counted_twice_do_not_read_as_a_sum():
    """36 failed items, 4 of them over their thresholds as well as regressed: not "4 ... , 36 ..."."""
    gating = Gating(
        items=40,
        thresholded=40,
        over_thresholds=4,
        baseline="main.json",
        compared=40,
        comparing=40,
        new=0,
        regressed=36,
        failed_items=36,
        accepted=0,
        gates=0,
        gates_failed=0,
        checks_failed=(),
        errors=0,
        invalid=0,
        other_failed=0,
    )
    assert failures(gating) == [
        "36 failed items (4 items over their thresholds, 36 items regressed against the baseline; 4 both)"
    ]
    apart = dataclasses.replace(gating, over_thresholds=4, regressed=32, failed_items=36)
    assert failures(apart) == ["4 items over their thresholds", "32 items regressed against the baseline"]


def test_a_gates_explanation_is_never_cut(runs):
    head = load(runs / "head.json")
    explanation = "vlm: 40 items with repeats against the baseline: FAILED: " + "; ".join(
        f"s.ocr.yaml::p{i:02d}[vlm]: cer 0.02 -> 0.5 (10 and 10 recognitions, p = 0.0001: shown at 95%)"
        for i in range(5)
    )
    head.gates = [GateResult("vlm: baseline, beyond the noise of repeats", False, explanation, None, 40)]
    lines = run_markdown(head, project=runs).splitlines()
    row = next(line for line in lines if line.startswith("| vlm: baseline, beyond the noise of repeats |"))
    assert len(explanation) > 400 and escape(explanation, len(explanation)) in row and "…" not in row
