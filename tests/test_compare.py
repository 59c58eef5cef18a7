"""Comparing two runs: reports made by the real plugin, compared by the library and by
`pytest-ocr compare`, against values worked out by hand below."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.runs import make_runs

from pytest_ocr.engines import fingerprint_changes
from pytest_ocr.report.json_report import comparison_document
from pytest_ocr.run.record import RunRecord
from pytest_ocr.run.rules import RuleError, compare, parse_rule, parse_rules
from pytest_ocr.run.stored import ReportError, load_report

pytestmark = pytest.mark.slow

# Worked out by hand (character error rate = edits / reference characters):
#   engine fake, BASE: worse 1/10, better 1/10 (fails its < 0.05), same 0/11, removed 1/10, crashes 0/10
#     cer macro = (0.1 + 0.1 + 0 + 0.1 + 0) / 5 = 0.06      micro = 3 / 51
#     cases 5: passed 4 (worse, same, removed, crashes), failed 1 (better), errors 0
#   engine fake, HEAD: worse 5/10 (fails < 0.15), better 0/10, same 0/11, new 1/10; crashes and
#     new-broken are errors (no side-car), so have no metrics
#     cer macro = (0.5 + 0 + 0 + 0.1) / 4 = 0.15              micro = 6 / 41
#     cases 6: passed 3 (better, same, new), failed 1 (worse), errors 2
#   char_accuracy (higher is better) = 1 - cer for substitutions only:
#     BASE macro (0.9 + 0.9 + 1 + 0.9 + 1) / 5 = 0.94, micro 48/51; HEAD macro (0.5 + 1 + 1 + 0.9) / 4 = 0.85,
#     micro 35/41
#   exact_match: BASE (0 + 0 + 1 + 0 + 1) / 5 = 0.4, HEAD (0 + 1 + 1 + 0) / 4 = 0.5
# Those are each run's own averages (unpaired: removed, new and crashed items in them). Over
# the items both runs measured (worse, better, same), which comparisons lead with:
#   cer macro (0.1 + 0.1 + 0) / 3 -> (0.5 + 0 + 0) / 3: +0.1; micro 2/31 -> 5/31: +3/31 = 0.0967...
#   char_accuracy macro (0.9 + 0.9 + 1) / 3 -> (0.5 + 1 + 1) / 3: -0.1; micro 29/31 -> 26/31: -3/31
#   exact_match (0 + 0 + 1) / 3 -> (0 + 1 + 1) / 3: better by 1/3
CER_MACRO = (0.06, 0.15)
CER_MICRO = (3 / 51, 6 / 41)
ID = "s.ocr.yaml::{}[fake]".format


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    return make_runs(tmp_path_factory.mktemp("runs"))


def read(path: Path) -> RunRecord:
    return RunRecord.from_document(load_report(path))


@pytest.fixture(scope="module")
def base(runs):
    return read(runs / "base.json")


@pytest.fixture(scope="module")
def head(runs):
    return read(runs / "head.json")


def run_cli(*args, cwd=None, columns=None):
    return subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "compare", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        encoding="utf-8",
        env=None if columns is None else {**os.environ, "COLUMNS": str(columns)},
    )


# -- the comparison ------------------------------------------------------------------------


def test_engine_aggregates_counts_and_directions(base, head):
    c = compare(base, head, [])
    assert [e.engine for e in c.engines] == ["fake", "fake2"]
    fake = c.engines[0]
    assert fake.base == {"cases": 5, "passed": 4, "failed": 1, "errors": 0, "filtered": 0, "skipped": 0}
    assert fake.head == {"cases": 6, "passed": 3, "failed": 1, "errors": 2, "filtered": 0, "skipped": 0}
    rows = {(d.metric, d.kind): d for d in fake.metrics}
    cer_macro, cer_micro = rows["cer", "macro"], rows["cer", "micro"]
    # led by the items both runs measured
    assert (cer_macro.items, cer_macro.old, cer_macro.new) == (3, pytest.approx(0.2 / 3), pytest.approx(0.5 / 3))
    assert cer_macro.change == pytest.approx(0.1) and cer_macro.direction == "worse"
    assert (cer_micro.old, cer_micro.new, cer_micro.change) == pytest.approx((2 / 31, 5 / 31, 3 / 31))
    assert cer_micro.direction == "worse"
    # each run's own averages, labelled unpaired, with the removed, new and crashed items in them
    assert (cer_macro.all_old, cer_macro.all_new) == pytest.approx(CER_MACRO)
    assert (cer_macro.all_old_n, cer_macro.all_new_n) == (5, 4) and cer_macro.unpaired_differs
    assert (cer_micro.all_old, cer_micro.all_new) == pytest.approx(CER_MICRO)
    accuracy = rows["char_accuracy", "micro"]
    assert (accuracy.old, accuracy.new, accuracy.change) == pytest.approx((29 / 31, 26 / 31, -3 / 31))
    assert accuracy.direction == "worse"  # it went down, and higher is better
    assert (accuracy.all_old, accuracy.all_new) == pytest.approx((48 / 51, 35 / 41))
    assert rows["char_accuracy", "macro"].change == pytest.approx(-0.1)
    exact = rows["exact_match", "macro"]
    assert (exact.old, exact.new, exact.direction) == (pytest.approx(1 / 3), pytest.approx(2 / 3), "better")
    assert (exact.all_old, exact.all_new) == pytest.approx((0.4, 0.5))
    fake2 = {(d.metric, d.kind): d for d in c.engines[1].metrics}
    assert fake2["cer", "macro"].direction == "same" and fake2["cer", "macro"].change == 0
    assert c.new_engines == [] and c.removed_engines == []


def test_items_new_removed_outcome_changes_and_case_deltas(base, head):
    c = compare(base, head, [])
    assert c.new_items == [ID("new-broken"), ID("new")]  # sorted: "-" before "["
    assert c.removed_items == [ID("removed")]
    assert [case.key for case in c.cases] == [
        ID("better"),
        ID("crashes"),
        "s.ocr.yaml::other[fake2]",
        ID("same"),
        ID("worse"),
    ]
    changes = {(o.key, o.old, o.new) for o in c.outcome_changes}
    assert changes == {
        (ID("better"), "failed", "passed"),
        (ID("crashes"), "passed", "error"),
        (ID("worse"), "passed", "failed"),
    }
    crashed = next(o for o in c.outcome_changes if o.new == "error")
    assert "engine crashed on crashes.tif" in crashed.error
    worse = next(case for case in c.cases if case.key == ID("worse"))
    deltas = {d.metric: d for d in worse.deltas}
    # no rules: every metric both records have, the default ones and the requested char_accuracy
    assert set(deltas) == {"cer", "char_accuracy", "ned", "exact_match", "wer"}
    assert (deltas["cer"].old, deltas["cer"].new, deltas["cer"].direction) == (0.1, 0.5, "worse")
    assert deltas["cer"].change == pytest.approx(0.4)
    assert deltas["char_accuracy"].change == pytest.approx(-0.4) and deltas["char_accuracy"].direction == "worse"
    assert deltas["wer"].direction == "same"  # one wrong word of one, before and after
    crashes = next(case for case in c.cases if case.key == ID("crashes"))
    assert crashes.deltas == []  # an error has no metrics
    assert [case.key for case in c.regressed_cases()] == [ID("worse")]
    assert not c.failed and c.violations == [] and c.notes == []


def test_fingerprint_change_of_one_engine(base, head):
    c = compare(base, head, [])
    assert [(e.engine, e.config_changes) for e in c.reconfigured] == [
        ("fake2", ["version: 1.0 -> 1.1", "config.kwargs.variant: a -> b"])
    ]


@pytest.mark.parametrize(
    ("rule", "violated"),
    [
        # per item, absolute: worse's cer 0.1 -> 0.5 is 0.4 worse
        ("cer:+0.05", [ID("worse")]),
        ("cer:+0.45", []),
        # per item, relative to the old value: allowed 50% of 0.1 = 0.05 < 0.4; 450% of 0.1 = 0.45 >= 0.4
        ("cer:+50%", [ID("worse")]),
        ("cer:450%", []),
        # higher is better: char_accuracy 0.9 -> 0.5 is 0.4 worse
        ("char_accuracy:+0.05", [ID("worse")]),
        ("char_accuracy:+0.45", []),
        # aggregates, over the items both runs measured: cer macro +0.1, micro +3/31 = 0.0967...,
        # char_accuracy micro 3/31 lower
        ("cer.macro:+0.09", ["fake"]),
        ("cer.macro:+0.11", []),
        ("cer.micro:+0.096", ["fake"]),
        ("cer.micro:+0.097", []),
        ("cer.macro:+100%", ["fake"]),  # allowed 1.0 * 0.0667 < 0.1
        ("cer.macro:+200%", []),  # allowed 2.0 * 0.0667 = 0.1333
        ("char_accuracy.micro:+0.096", ["fake"]),
        ("char_accuracy.micro:+0.097", []),
        ("exact_match.macro:+0", []),  # it got better
        # errors: crashes was passed and is now an error; new-broken is new, never a failure
        ("errors", [ID("crashes")]),
    ],
)
def test_each_rule_kind(base, head, rule, violated):
    c = compare(base, head, [parse_rule(rule)])
    assert [v.key or v.engine for v in c.violations] == violated
    assert c.failed == bool(violated)
    assert all(v.rule == str(parse_rule(rule)) for v in c.violations)


def test_violation_messages_say_values_direction_and_tolerance(base, head):
    c = compare(base, head, parse_rules(["cer:+0.05", "char_accuracy.macro:+0.01", "errors"]))
    messages = [v.message for v in c.violations]
    # the means over the items both runs measured, exactly as computed from the reports' values
    old, new = math.fsum([0.9, 0.9, 1.0]) / 3, math.fsum([0.5, 1.0, 1.0]) / 3
    assert messages[0] == (
        f"fake (macro): char_accuracy: {old!r} -> {new!r} ({new - old!r}; higher is better; tolerance 0.01): REGRESSED"
    )
    # then per item, by id: crashes before worse
    assert messages[2] == f"{ID('worse')}: cer: 0.1 -> 0.5 (+0.4; lower is better; tolerance 0.05): REGRESSED"
    assert messages[1].startswith(
        f"{ID('crashes')}: passed -> error: sidecar_engine:read raised RuntimeError: engine crashed on crashes.tif"
    )
    worse = next(case for case in c.cases if case.key == ID("worse"))
    assert worse.violated
    # with rules naming metrics, only those are compared per item
    assert {d.metric for d in worse.deltas} == {"cer", "char_accuracy"}


def test_identical_runs_compare_clean(base):
    c = compare(base, base, parse_rules(["cer:+0", "cer.macro:+0", "cer.micro:+0", "errors"]))
    assert not c.failed and c.outcome_changes == [] and c.reconfigured == [] and c.new_items == []
    assert all(d.direction == "same" for e in c.engines for d in e.metrics if d.change is not None)
    assert c.regressed_cases() == []


def test_a_rule_that_compares_nothing_is_noted(base, head):
    c = compare(base, head, parse_rules(["field_f1:+0.01", "field_f1.micro:+0.01"]))
    assert not c.failed
    assert c.notes == [
        "rule field_f1:+0.01 compared nothing: no item or engine has its values in both reports",
        "rule field_f1.micro:+0.01 compared nothing: no item or engine has its values in both reports",
    ]


def test_to_dict_is_standard_json(base, head):
    c = compare(base, head, parse_rules(["cer:+0.05"]))
    document = json.loads(json.dumps(comparison_document(c), allow_nan=False))
    assert document["failed"] is True and document["rules"] == ["cer:+0.05"]
    # a violation as it always was: its message with the values in full
    [violation] = document["violations"]
    assert violation == {
        "rule": "cer:+0.05",
        "message": f"{ID('worse')}: cer: 0.1 -> 0.5 (+0.4; lower is better; tolerance 0.05): REGRESSED",
        "key": ID("worse"),
        "engine": "fake",
    }
    worse = next(case for case in document["cases"] if case["key"] == ID("worse"))
    assert worse["regressed"] is True and worse["violated"] is True
    assert [(e["engine"], e["config_changes"]) for e in document["engines"] if e["config_changes"]] == [
        ("fake2", ["version: 1.0 -> 1.1", "config.kwargs.variant: a -> b"])
    ]


# -- rules ---------------------------------------------------------------------------------


def test_rule_grammar():
    assert str(parse_rule("cer:+0.005")) == "cer:+0.005"
    assert str(parse_rule(" cer : 0.005 ")) == "cer:+0.005"
    rule = parse_rule("cer:+10%")
    assert (rule.scope, rule.metric, rule.tolerance.amount, rule.tolerance.relative) == ("case", "cer", 0.1, True)
    rule = parse_rule("field_f1.micro:+0.01")
    assert (rule.scope, rule.metric, rule.tolerance.amount) == ("micro", "field_f1", 0.01)
    assert parse_rule("errors").scope == "errors"
    rule = parse_rule("cer.macro:+0.002@95%")
    assert (rule.scope, rule.tolerance.amount, rule.tolerance.confidence, str(rule)) == (
        "macro",
        0.002,
        0.95,
        "cer.macro:+0.002@95%",
    )
    rule = parse_rule("cer:+0.01@99%")  # an item's, for items with repeats (tests/test_noise.py)
    assert (rule.scope, rule.tolerance.amount, rule.tolerance.confidence, str(rule)) == (
        "case",
        0.01,
        0.99,
        "cer:+0.01@99%",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cer", "bad rule 'cer': expected METRIC:TOLERANCE (cer:+0.005, cer:+10%)"),
        ("cerr:+0.1", "unknown metric 'cerr'; did you mean 'cer'?"),
        ("cer.mean:+0.1", "an aggregate is METRIC.macro or METRIC.micro, not 'cer.mean'"),
        ("cer:-0.1", "a tolerance is a number such as 0.005 or a percentage such as \"10%\", not '-0.1'"),
        ("cer:lots", "not 'lots'"),
        ("errors:+1", "errors takes no tolerance"),
        ("cer.macro:+0.01@100%", "a confidence is a percentage from 50% to below 100% such as @95%, not @100%"),
    ],
)
def test_bad_rules_say_what_was_expected(text, message):
    with pytest.raises(RuleError) as info:
        parse_rule(text)
    assert message in str(info.value)


# -- fingerprints --------------------------------------------------------------------------


def test_fingerprint_changes_on_nested_dicts():
    old = {
        "type": "tesseract",
        "version": "tesseract 5.3.0",
        "fingerprint_id": "aaaa",
        "config": {"lang": "eng", "psm": None, "config": {}, "model": "a", "traineddata": {"eng": "7d4322bd2a774972"}},
    }
    new = {
        "type": "tesseract",
        "version": "tesseract 5.4.1",
        "fingerprint_id": "bbbb",
        "config": {
            "lang": "deu",
            "psm": 6,
            "config": {"tessedit_char_whitelist": "0123456789"},
            "model": "b",
            "traineddata": {"deu": "1a2b3c4d5e6f7a8b"},
            "oem": 1,
        },
    }
    assert fingerprint_changes(old, new) == [
        "version: tesseract 5.3.0 -> tesseract 5.4.1",
        "config.lang: eng -> deu",
        "config.psm: null -> 6",
        "config.config: removed (was {})",  # an empty mapping is a value of its own
        "config.model: a -> b",
        "config.traineddata.eng: removed (was 7d4322bd2a774972)",
        "config.config.tessedit_char_whitelist: added (0123456789)",
        "config.traineddata.deu: added (1a2b3c4d5e6f7a8b)",
        "config.oem: added (1)",
    ]
    # fingerprint_id is a hash of the rest: a different one alone is no change
    assert fingerprint_changes(old, {**old, "fingerprint_id": "cccc"}) == []
    assert fingerprint_changes(new, new) == []


def test_fingerprint_changes_of_lists_scalars_and_missing_sides():
    old = {"type": "command", "version": None, "config": {"argv": ["ocr", "{image}"], "env": {"A": "1"}}}
    new = {"type": "command", "version": "2", "config": {"argv": ["ocr", "--fast", "{image}"], "env": "none"}}
    assert fingerprint_changes(old, new) == [
        "version: null -> 2",
        'config.argv: ["ocr", "{image}"] -> ["ocr", "--fast", "{image}"]',
        "config.env.A: removed (was 1)",
        "config.env: added (none)",
    ]
    long = {"type": "x", "version": "1", "config": {"prompt": "p" * 200}}
    (line,) = fingerprint_changes({**long, "config": {"prompt": "q"}}, long)
    assert line == "config.prompt: q -> " + "p" * 77 + "..."
    assert fingerprint_changes(None, None) == []
    assert fingerprint_changes(None, old) == ["no fingerprint before"]
    assert fingerprint_changes(old, None) == ["no fingerprint now"]


# -- reading reports -----------------------------------------------------------------------


def test_load_report_errors_name_the_file_and_the_problem(runs, tmp_path):
    with pytest.raises(ReportError, match=r"missing\.json: file not found"):
        load_report(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"schema_version": 1,\n  "tool": }', encoding="utf-8")
    with pytest.raises(ReportError, match=r"bad\.json: not JSON: Expecting value at line 2 column 11"):
        load_report(tmp_path / "bad.json")
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ReportError, match=r"list\.json: not a pytest-ocr report \(expected a JSON object"):
        load_report(tmp_path / "list.json")
    report = json.loads((runs / "base.json").read_text(encoding="utf-8"))
    broken = json.loads(json.dumps(report))
    broken["results"][2]["outcome"] = "bogus"
    (tmp_path / "schema.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(ReportError) as info:
        load_report(tmp_path / "schema.json")
    assert str(info.value) == (
        f"{tmp_path / 'schema.json'}: not a valid pytest-ocr report: at /results/2/outcome: "
        f"'bogus' is not one of ['passed', 'failed', 'error', 'filtered', 'skipped', 'invalid']"
    )
    (tmp_path / "nan.json").write_text(
        json.dumps(report).replace('"duration_s": ', '"duration_s": NaN, "x": ', 1), encoding="utf-8"
    )
    with pytest.raises(ReportError, match=r"nan\.json: not JSON: NaN is not standard JSON"):
        load_report(tmp_path / "nan.json")
    (tmp_path / "v3.json").write_text(json.dumps({**report, "schema_version": 3}), encoding="utf-8")
    with pytest.raises(ReportError, match=r"v3\.json: report schema version 3; this pytest-ocr reads versions 1, 2"):
        load_report(tmp_path / "v3.json")
    duplicated = {**report, "results": report["results"] + report["results"][:1]}
    (tmp_path / "dup.json").write_text(json.dumps(duplicated), encoding="utf-8")
    with pytest.raises(ReportError, match=rf"at /results/{len(report['results'])}/key: duplicate key"):
        load_report(tmp_path / "dup.json")
    assert issubclass(ReportError, ValueError)


# -- the command ---------------------------------------------------------------------------


def test_cli_exit_codes_per_rule_kind(runs):
    for rules, expected in [
        ([], 0),
        (["cer:+0.45"], 0),
        (["cer:+0.05"], 1),
        (["cer:+450%"], 0),
        (["cer:+50%"], 1),
        (["cer.macro:+0.11", "cer.micro:+0.097"], 0),
        (["cer.macro:+0.01"], 1),
        (["cer.micro:+0.014"], 1),
        (["errors"], 1),
    ]:
        args = [a for rule in rules for a in ("--fail-on", rule)]
        result = run_cli("base.json", "head.json", *args, cwd=runs)
        assert result.returncode == expected, (rules, result.stdout, result.stderr)
        assert result.stderr == ""


def test_cli_bad_input_is_exit_2_with_one_line(runs, tmp_path):
    (tmp_path / "not-a-report.json").write_text('{"hello": "world"}', encoding="utf-8")
    for args, message in [
        (["base.json", "nope.json"], "pytest-ocr compare: nope.json: file not found"),
        (["base.json", tmp_path / "not-a-report.json"], "not a pytest-ocr report"),
        (["base.json", "head.json", "--fail-on", "cer:ten"], "pytest-ocr compare: bad rule 'cer:ten': "),
        (["base.json", "head.json", "--fail-on", "cerr:+0.1"], "unknown metric 'cerr'; did you mean 'cer'?"),
    ]:
        result = run_cli(*args, cwd=runs)
        assert result.returncode == 2, args
        assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""


def test_cli_text_output(runs):
    result = run_cli("base.json", "head.json", "--fail-on", "cer:+0.05", "--fail-on", "errors", cwd=runs)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "pytest-ocr compare: base.json -> head.json"
    assert "fake: cases 5 -> 6, passed 4 -> 3, failed 1, errors 0 -> 2, filtered 0, skipped 0" in lines
    # numbers rounded for people, as numbers.py has it (--json keeps them in full)
    cer_macro = next(line for line in lines if line.strip().startswith("cer macro"))
    assert cer_macro.split() == "cer macro 0.0667 -> 0.1667 +0.1000 worse (3 items in both)".split()
    # the runs' own averages, labelled: the removed, new and crashed items move them
    assert lines[lines.index(cer_macro) + 2].split() == (
        "all items (unpaired, new and removed ones included): 0.0600 (5) -> 0.1500 (4)".split()
    )
    exact = next(line for line in lines if line.strip().startswith("exact_match macro"))
    assert exact.split()[-6:] == ["+0.3333", "better", "(3", "items", "in", "both)"]
    assert "engine configuration changed: fake2" in lines and "  config.kwargs.variant: a -> b" in lines
    assert "items: 5 in both, 2 new, 1 removed (new and removed items are not compared)" in lines
    assert f"  {ID('worse')}: cer 0.1000 -> 0.5000" in lines
    assert "rule violations (2):" in lines
    assert (
        f"  [cer:+0.05] {ID('worse')}: cer: 0.1000 -> 0.5000 (+0.4000; lower is better; tolerance 0.05): REGRESSED"
    ) in lines
    assert lines[-1] == "result: FAILED: 2 rule violation(s) of cer:+0.05, errors"

    # an aggregate rule, on the three items both runs measured: 0.9333 -> 0.8333
    result = run_cli("base.json", "head.json", "--fail-on", "char_accuracy.macro:+0.01", cwd=runs)
    assert result.returncode == 1
    assert (
        "  [char_accuracy.macro:+0.01] fake (macro): char_accuracy: 0.9333 -> 0.8333 (-0.1000; higher is better; "
        "tolerance 0.01): REGRESSED"
    ) in result.stdout.splitlines()
    # the item that regressed beyond its own tolerance without breaking this rule is still counted
    assert result.stdout.splitlines()[-1] == (
        "result: FAILED: 1 rule violation(s) of char_accuracy.macro:+0.01; besides, 1 item(s) regressed beyond "
        "their own tolerances"
    )


def test_cli_help_documents_rules_with_a_confidence():
    result = run_cli("--help")
    assert result.returncode == 0 and "cer.macro:+0.002@95%" in " ".join(result.stdout.split())


def test_cli_text_fits_the_terminal_and_cuts_nothing(runs):
    """COLUMNS, as the run's summary: every line fits, long ones wrap, no id or value is lost."""
    wide = run_cli("base.json", "head.json", "--fail-on", "cer:+0.05", "--fail-on", "errors", cwd=runs)
    for columns in (80, 120):
        result = run_cli(
            "base.json", "head.json", "--fail-on", "cer:+0.05", "--fail-on", "errors", cwd=runs, columns=columns
        )
        lines = result.stdout.splitlines()
        assert max(len(line) for line in lines) <= columns
        assert " ".join(result.stdout.split()) == " ".join(wide.stdout.split())  # wrapped at spaces, nothing cut


def test_cli_text_without_rules_still_counts_what_regressed(runs):
    # HEAD's "worse" item: CER 0.1 -> 0.5 against its threshold (< 0.15), which compares it with no tolerance.
    result = run_cli("base.json", "head.json", cwd=runs)
    assert result.returncode == 0  # no rule, no failure: the run that made HEAD failed the item
    lines = result.stdout.splitlines()
    assert f"  {ID('worse')}: cer 0.1000 -> 0.5000; char_accuracy 0.9000 -> 0.5000; ned 0.1000 -> 0.5000" in lines
    assert lines[-1] == (
        "result: 1 item(s) regressed beyond their own tolerances; no rules given (--fail-on), so compare fails "
        "on nothing"
    )
    result = run_cli("base.json", "base.json", cwd=runs)
    assert result.stdout.splitlines()[-1] == (
        "result: no item regressed; no rules given (--fail-on), so compare fails on nothing"
    )


def test_cli_json_and_markdown_are_the_library_s(runs, base, head):
    result = run_cli("base.json", "head.json", "--fail-on", "cer.macro:+0.01", "--json", cwd=runs)
    assert result.returncode == 1
    expected = compare(base, head, parse_rules(["cer.macro:+0.01"]), path="base.json")
    assert json.loads(result.stdout) == comparison_document(expected)
    result = run_cli("base.json", "head.json", "--markdown", cwd=runs)
    assert result.returncode == 0
    assert result.stdout.startswith("### OCR comparison: base → head\n")
    assert "| cer macro | 0.0667 | 0.1667 | ▲ +0.1000 worse |" in result.stdout
    assert "| 0.0600 (5) → 0.1500 (4) |" in result.stdout  # the runs' own averages, labelled unpaired
    result = run_cli("base.json", "head.json", "--markdown", "--json", cwd=runs)
    assert result.returncode == 2 and "not allowed with argument" in result.stderr


def test_cli_text_keeps_terminal_control_sequences_out(runs, tmp_path):
    head = json.loads((runs / "head.json").read_text(encoding="utf-8"))
    crashed = next(r for r in head["results"] if r["id"] == ID("crashes"))
    crashed["error"] = "engine said \x1b[2J\x1b[31mred\x07 and more"
    (tmp_path / "head.json").write_text(json.dumps(head), encoding="utf-8")
    result = run_cli(runs / "base.json", tmp_path / "head.json", "--fail-on", "errors")
    assert result.returncode == 1
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert f"  {ID('crashes')}: passed -> error: engine said \\x1b[2J\\x1b[31mred\\x07 and more" in result.stdout
