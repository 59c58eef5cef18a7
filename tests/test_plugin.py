"""The plugin end to end, through pytester: collection, errors, thresholds, summary, report."""

from __future__ import annotations

import json

import jiwer
import pytest
from conftest import INI, load_report, requires_tesseract, run

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow


# -- collection -------------------------------------------------------------------


def test_single_case_file_takes_its_id_from_the_file_name(suite):
    suite.image("scan.tif", "hello world")
    suite.write("invoice.ocr.yaml", "image: scan.tif\nexpected: {text: hello world}\n")
    result = run(suite, "--collect-only", "-q")
    result.stdout.fnmatch_lines(["invoice.ocr.yaml::invoice[[]fake[]]"])


def test_suite_items_are_case_times_engine_sorted_by_id(suite):
    suite.image("a.tif", "x")
    suite.write("more.yaml", "")  # not a case file: ignored
    suite.write(
        "ocr-config.yaml",
        """
engines:
  fake: {type: python, function: sidecar_engine:read}
  fake2: {type: python, function: sidecar_engine:read}
defaults:
  engine: fake
""",
    )
    suite.write(
        "invoices.ocr.yaml",
        """
cases:
  - {id: inv-010, image: a.tif, expected: {text: x}}
  - {id: inv-001, image: a.tif, expected: {text: x}, engine: [fake2, fake]}
""",
    )
    result = run(suite, "--collect-only", "-q")
    assert result.stdout.lines[:3] == [
        "invoices.ocr.yaml::inv-001[fake2]",
        "invoices.ocr.yaml::inv-001[fake]",
        "invoices.ocr.yaml::inv-010[fake]",
    ]


def test_json_case_files_and_configurable_patterns(suite):
    suite.image("a.tif", "x")
    suite.write("c.ocr.json", '{"image": "a.tif", "expected": {"text": "x"}}')
    suite.write("d.cases.yml", "image: a.tif\nexpected: {text: x}\n")
    run(suite, "--collect-only", "-q").stdout.fnmatch_lines(["c.ocr.json::c[[]fake[]]", "1 test collected*"])
    suite.pytester.makeini(INI + "ocr_files = *.cases.yml\n")
    run(suite, "--collect-only", "-q").stdout.fnmatch_lines(["d.cases.yml::d.cases[[]fake[]]", "1 test collected*"])


def test_k_selects_by_id_and_tags_are_strict_markers(suite):
    suite.image("a.tif", "x")
    suite.write(
        "s.ocr.yaml",
        """
defaults: {tags: [receipts]}
cases:
  - {id: inv-001, image: a.tif, expected: {text: x}, tags: [hard-case]}
  - {id: inv-002, image: a.tif, expected: {text: x}}
""",
    )
    result = run(suite, "--strict-markers", "-k", "inv-002", "-v")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*s.ocr.yaml::inv-002[[]fake[]] PASSED*"])
    result = run(suite, "--strict-markers", "-m", "hard-case", "-v")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*inv-001*PASSED*"])
    result = run(suite, "--strict-markers", "-m", "receipts and not hard-case")
    result.assert_outcomes(passed=1, deselected=1)


# -- bad case files -----------------------------------------------------------------


def test_schema_violations_are_one_located_error_and_the_rest_runs(suite):
    suite.image("a.tif", "x")
    suite.write("good.ocr.yaml", "image: a.tif\nexpected: {text: x}\n")
    suite.write(
        "bad.ocr.yaml",
        """cases:
  - id: one
    imgae: a.tif
    expected: {text: x}
    thresholds:
      cerr: "< 0.1"
      wer: "<< 0.1"
  - id: one
    image: a.tif
    expected: {text: x, text_file: y.txt}
    normalize: {unicode: nfc}
""",
    )
    result = run(suite)
    result.assert_outcomes(passed=1, errors=1)
    out = result.stdout.str()
    assert "bad.ocr.yaml: 7 problems" in out
    for expected in [
        "bad.ocr.yaml:2: cases[0]: missing required key 'image'",
        "bad.ocr.yaml:3: cases[0].imgae: unknown key 'imgae'; did you mean 'image'?",
        "bad.ocr.yaml:6: cases[0].thresholds.cerr: unknown metric 'cerr'; did you mean 'cer'?",
        "bad.ocr.yaml:7: cases[0].thresholds.wer: expected a comparison",
        "bad.ocr.yaml:8: cases[1].id: duplicate case id 'one' (first on line 2)",
        "bad.ocr.yaml:10: cases[1].expected: expected the ground truth",
        'bad.ocr.yaml:11: cases[1].normalize.unicode: expected one of NFC, NFD, NFKC, NFKD, none; got "nfc"',
    ]:
        assert expected in out
    assert "Traceback" not in out


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("broken.ocr.yaml", "image: a.tif\nexpected: {text: x\n", "broken.ocr.yaml:3: (top level): malformed YAML"),
        ("broken.ocr.json", '{"image": "a.tif",\n "expected": }', "broken.ocr.json:2: (top level): malformed JSON"),
        (
            "dup.ocr.yaml",
            "image: a.tif\nimage: b.tif\nexpected: {text: x}\n",
            "dup.ocr.yaml:2: image: duplicate key 'image' (first on line 1)",
        ),
        ("empty.ocr.yaml", "", "the file is empty"),
        ("list.ocr.yaml", "- a\n- b\n", "(top level): expected object, got list"),
    ],
)
def test_unparseable_files_are_located_errors(suite, name, content, message):
    suite.image("a.tif", "x")
    suite.write("good.ocr.yaml", "image: a.tif\nexpected: {text: x}\n")
    suite.write(name, content)
    result = run(suite)
    result.assert_outcomes(passed=1, errors=1)
    assert message in result.stdout.str()


def test_yaml_is_loaded_safely(suite):
    suite.image("a.tif", "x")
    suite.write(
        "evil.ocr.yaml", "image: !!python/object/apply:os.system ['echo pwned > pwned.txt']\nexpected: {text: x}\n"
    )
    result = run(suite)
    result.assert_outcomes(errors=1)
    assert not (suite.path / "pwned.txt").exists()
    assert "malformed YAML" in result.stdout.str()


# -- inputs and engines that fail ------------------------------------------------------


def test_bad_inputs_and_engine_crashes_are_errors_for_that_item_only(suite):
    suite.image("ok.tif", "x")
    suite.image("crash.tif", None)  # the sidecar engine raises for this one
    suite.write("corrupt.png", "this is not a PNG")
    (suite.path / "latin1.txt").write_bytes("Stra\xdfe".encode("latin-1"))
    suite.write(
        "s.ocr.yaml",
        """
cases:
  - {id: ok, image: ok.tif, expected: {text: x}}
  - {id: missing-image, image: nope.png, expected: {text: x}}
  - {id: corrupt-image, image: corrupt.png, expected: {text: x}}
  - {id: latin1-gt, image: ok.tif, expected: {text_file: latin1.txt}}
  - {id: crash, image: crash.tif, expected: {text: x}}
  - {id: unknown-engine, image: ok.tif, expected: {text: x}, engine: nosuch}
""",
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=1, errors=5)
    out = result.stdout.str()
    assert "image not found:" in out and "nope.png (case missing-image at " in out
    assert "image is corrupt or not a PNG file:" in out
    assert "ground truth file is not UTF-8:" in out and "latin1.txt" in out
    assert "engine crashed on crash.tif" in out
    assert "unknown engine 'nosuch' (case unknown-engine at " in out and "declared engines: fake" in out
    report = load_report(suite)
    outcomes = {r["case"]: r["outcome"] for r in report["results"]}
    assert outcomes == {
        "ok": "passed",
        "missing-image": "error",
        "corrupt-image": "error",
        "latin1-gt": "error",
        "crash": "error",
        "unknown-engine": "error",
    }
    assert all(r["error"] for r in report["results"] if r["outcome"] == "error")


# -- thresholds -----------------------------------------------------------------------


def test_thresholds_gate_and_the_failure_shows_values_location_and_diff(suite):
    suite.image("a.tif", "INV0ICE #12345")
    suite.write(
        "s.ocr.yaml",
        """cases:
  - id: strict
    image: a.tif
    expected: {text: "INVOICE #12345"}
    thresholds: {cer: "< 0.05", exact_match: "== 1"}
  - id: lenient
    image: a.tif
    expected: {text: "INVOICE #12345"}
    thresholds: {cer: "<= 0.0714285714285715", wer: "<= 0.5"}
""",
    )
    result = run(suite)
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "s.ocr.yaml:2" in out  # the case's line
    assert "cer = 0.0714, expected < 0.05: FAILED" in out  # 1/14, rounded for people
    assert "exact_match = 0.0000, expected == 1: FAILED" in out
    assert "expected:   INVOICE #12345" in out
    assert "recognized: INV0ICE #12345" in out


def test_threshold_precedence_project_then_suite_then_case(suite):
    suite.image("a.tif", "abcdefghi")  # one deletion against 10 chars: CER 0.1
    suite.write(
        "ocr-config.yaml",
        """
engines: {fake: {type: python, function: sidecar_engine:read}}
defaults: {engine: fake, thresholds: {cer: "< 0.05", ned: "< 0.5"}}
""",
    )
    suite.write("project.ocr.yaml", "image: a.tif\nexpected: {text: abcdefghij}\n")
    suite.write(
        "suite.ocr.yaml",
        """
defaults: {thresholds: {cer: "<= 0.1"}}
cases:
  - {id: inherits, image: a.tif, expected: {text: abcdefghij}}
  - {id: overrides, image: a.tif, expected: {text: abcdefghij}, thresholds: {cer: "< 0.1"}}
  - {id: removes, image: a.tif, expected: {text: abcdefghij}, thresholds: {cer: null}}
""",
    )
    result = run(suite, "-v", "--ocr-report", "report.json")
    result.stdout.fnmatch_lines(
        [
            "*project.ocr.yaml::project*FAILED*",
            "*suite.ocr.yaml::inherits*PASSED*",
            "*suite.ocr.yaml::overrides*FAILED*",
            "*suite.ocr.yaml::removes*PASSED*",
        ]
    )
    thresholds = {r["case"]: r["thresholds"] for r in load_report(suite)["results"]}
    assert thresholds == {
        "project": {"cer": "< 0.05", "ned": "< 0.5"},
        "inherits": {"cer": "<= 0.1", "ned": "< 0.5"},
        "overrides": {"cer": "< 0.1", "ned": "< 0.5"},
        "removes": {"ned": "< 0.5"},
    }


def test_normalisation_is_configurable_and_recorded(suite):
    suite.image("a.tif", "  hello,   WORLD!\n")
    suite.write(
        "s.ocr.yaml",
        """
cases:
  - {id: default, image: a.tif, expected: {text: "Hello world"}}
  - id: folded
    image: a.tif
    expected: {text: "Hello world"}
    normalize: {casefold: true, remove_punctuation: true}
    thresholds: {exact_match: "== 1"}
""",
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=2)
    results = {r["case"]: r for r in load_report(suite)["results"]}
    assert results["folded"]["metrics"]["cer"] == 0
    assert results["folded"]["details"]["cer"]["normalization"] == [
        "NFC",
        "casefold",
        "remove_punctuation",
        "collapse_whitespace",
    ]
    assert results["default"]["details"]["cer"]["normalization"] == ["NFC", "collapse_whitespace"]
    assert results["default"]["metrics"]["cer"] == pytest.approx(jiwer.cer("Hello world", "hello, WORLD!"))


# -- summary -------------------------------------------------------------------------


def _three_cases(suite):
    refs = {"alpha": "the quick brown fox", "bravo": "jumps over the lazy dog", "charlie": "INVOICE 12345"}
    hyps = {"alpha": "the quick brown fox", "bravo": "jumps ovr the lazy dgo", "charlie": "INV0ICE 1234"}
    for key in refs:
        suite.image(f"{key}.tif", hyps[key])
    cases = "\n".join(f"  - {{id: {k}, image: {k}.tif, expected: {{text: '{refs[k]}'}}}}" for k in refs)
    suite.write("s.ocr.yaml", f"cases:\n{cases}\n")
    return refs, hyps


def test_summary_shows_macro_and_micro_per_engine(suite):
    refs, hyps = _three_cases(suite)
    result = run(suite)
    out = result.stdout.str()
    assert "OCR summary" in out
    keys = sorted(refs)
    macro = sum(jiwer.cer(refs[k], hyps[k]) for k in keys) / 3
    micro = jiwer.cer([refs[k] for k in keys], [hyps[k] for k in keys])  # jiwer pools edits over sentences
    wer_micro = jiwer.wer([refs[k] for k in keys], [hyps[k] for k in keys])
    result.stdout.fnmatch_lines(
        [
            "*fake",
            "cases *3",
            "passed *3",
            f"cer macro *{macro:.4f}",
            f"cer micro *{micro:.4f}",
            "wer macro *",
            f"wer micro *{wer_micro:.4f}",
            "macro = mean over cases; micro = pooled*",
            "worst cases by cer (fake):",
            "*s.ocr.yaml::charlie[[]fake[]]*",
            "*s.ocr.yaml::bravo[[]fake[]]*",
        ]
    )


def test_summary_follows_k_and_is_quiet_and_silent(suite):
    _three_cases(suite)
    selected = run(suite, "-k", "alpha or bravo")
    selected.assert_outcomes(passed=2, deselected=1)
    selected.stdout.fnmatch_lines(["cases *2"])
    assert "charlie" not in selected.stdout.str()
    quiet = run(suite, "-q").stdout.str()
    assert "OCR summary" in quiet and "worst cases" not in quiet
    assert "OCR summary" not in run(suite, "-qq").stdout.str()
    suite.pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    plain = run(suite, "test_plain.py").stdout.str()
    assert "OCR summary" not in plain


def test_several_engines_side_by_side(suite):
    suite.image("a.tif", "hello world")
    suite.write(
        "ocr-config.yaml",
        """
engines:
  fake: {type: python, function: sidecar_engine:read}
  other: {type: python, function: sidecar_engine:read}
""",
    )
    suite.write("s.ocr.yaml", "image: a.tif\nexpected: {text: hello world}\nengine: [fake, other]\n")
    result = run(suite)
    result.stdout.fnmatch_lines(["* fake * other", "cases * 1 * 1"])


def test_ocr_engine_option_replaces_the_engines_cases_name(suite):
    suite.image("a.tif", "x")
    suite.write(
        "ocr-config.yaml",
        """
engines:
  fake: {type: python, function: sidecar_engine:read}
  other: {type: python, function: sidecar_engine:read}
""",
    )
    suite.write("s.ocr.yaml", "image: a.tif\nexpected: {text: x}\nengine: fake\n")
    result = run(suite, "--ocr-engine", "other,fake", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["s.ocr.yaml::s[[]fake[]]", "s.ocr.yaml::s[[]other[]]"])


# -- the JSON report --------------------------------------------------------------------


def test_json_report_matches_its_schema_and_the_summary(suite):
    refs, hyps = _three_cases(suite)
    result = run(suite, "--ocr-report", "out/report.json")
    assert result.ret == 0
    report = load_report(suite, "out/report.json")
    assert report["tool"]["name"] == "pytest-ocr"
    assert report["engines"]["fake"]["type"] == "python"
    records = report["results"]
    assert [r["id"] for r in records] == [
        "s.ocr.yaml::alpha[fake]",
        "s.ocr.yaml::bravo[fake]",
        "s.ocr.yaml::charlie[fake]",
    ]
    b = records[1]
    assert b["reference"] == refs["bravo"] and b["prediction"] == hyps["bravo"]
    assert b["image"] == "bravo.tif" and b["file"] == "s.ocr.yaml" and b["outcome"] == "passed"
    counts = jiwer.process_characters(refs["bravo"], hyps["bravo"])
    assert b["details"]["cer"]["substitutions"] == counts.substitutions
    assert b["details"]["cer"]["insertions"] == counts.insertions
    assert b["details"]["cer"]["deletions"] == counts.deletions
    summary = report["summary"]["fake"]
    assert (summary["cases"], summary["passed"], summary["failed"], summary["errors"]) == (3, 3, 0, 0)
    assert summary["metrics"]["cer"]["macro"] == pytest.approx(sum(r["metrics"]["cer"] for r in records) / 3)
    assert summary["metrics"]["cer"]["micro"] == pytest.approx(jiwer.cer(list(refs.values()), list(hyps.values())))
    assert not list((suite.path / "out").glob(".*tmp"))  # written atomically, no leftovers


def test_json_report_has_no_nan_and_records_empty_reference_policy(suite):
    suite.image("a.tif", "")
    suite.image("b.tif", "noise")
    suite.write(
        "s.ocr.yaml",
        """
cases:
  - {id: blank, image: a.tif, expected: {text: ""}}
  - {id: blank-noise, image: b.tif, expected: {text: "   "}}
""",
    )
    run(suite, "--ocr-report", "report.json")
    text = (suite.path / "report.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    results = {r["case"]: r for r in load_report(suite)["results"]}
    assert results["blank"]["metrics"]["cer"] == 0.0
    assert results["blank-noise"]["metrics"]["cer"] == 1.0
    assert results["blank-noise"]["details"]["cer"]["empty_reference"] is True


def test_report_holds_invalid_files_as_results(suite):
    suite.write("bad.ocr.yaml", "image: 3\n")
    run(suite, "--ocr-report", "report.json")
    report = load_report(suite)
    [invalid] = report["results"]
    assert (invalid["key"], invalid["file"], invalid["line"], invalid["outcome"], invalid["engine"]) == (
        "bad.ocr.yaml::invalid-case-file",
        "bad.ocr.yaml",
        1,
        "invalid",
        None,
    )
    assert "missing required key 'expected'" in invalid["error"]


# -- project configuration and extension points -----------------------------------------------


def test_invalid_project_config_is_a_usage_error_with_location(suite):
    suite.write("ocr-config.yaml", "engines:\n  fake: {type: python}\ndefaults:\n  thresholds: {cerr: '< 1'}\n")
    result = run(suite)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ocr-config.yaml:4: defaults.thresholds.cerr: unknown metric 'cerr'*"])


def test_conftest_hook_registers_an_engine_type(suite):
    suite.image("a.tif", None)
    suite.pytester.makeconftest("""
from pytest_ocr.engines import Recognition

class Upper:
    def __init__(self, spec):
        self.word = spec.options.get("word", "HELLO")
    def recognize(self, image):
        return Recognition(text=self.word)
    def fingerprint(self):
        return {"type": "upper", "version": "1", "config": {"word": self.word}}

def pytest_ocr_register_engines(registry):
    registry.register("upper", Upper)
""")
    suite.write(
        "s.ocr.yaml", "image: a.tif\nexpected: {text: HELLO}\nengine: upper\nthresholds: {exact_match: '== 1'}\n"
    )
    run(suite).assert_outcomes(passed=1)


@requires_tesseract
def test_real_tesseract_by_default_on_a_real_scan(pytester):
    import shutil

    from conftest import DATA

    shutil.copy(DATA / "pages" / "tess_phototest.tif", pytester.path)
    shutil.copy(DATA / "pages" / "tess_phototest.gt.txt", pytester.path)
    pytester.makefile(
        ".ocr.yaml",
        phototest="image: tess_phototest.tif\nexpected: {text_file: tess_phototest.gt.txt}\n"
        "thresholds: {cer: '< 0.01', wer: '< 0.02'}\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--ocr-report", "r.json", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*phototest.ocr.yaml::phototest[[]tesseract[]] PASSED*"])
    record = json.loads((pytester.path / "r.json").read_text())["results"][0]
    assert record["engine"] == "tesseract" and 0 < record["confidence"] <= 1
    assert record["inference_s"] > 0


def test_xdist_gives_the_same_report_as_a_serial_run(suite):
    refs, _ = _three_cases(suite)
    suite.image("crash.tif", None)
    suite.write("t.ocr.yaml", "image: crash.tif\nexpected: {text: x}\n")
    suite.write("bad.ocr.yaml", "image: 3\n")
    run(suite, "--ocr-report", "serial.json")
    result = suite.pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--ocr-report", "parallel.json")
    result.assert_outcomes(passed=3, errors=2)
    result.stdout.fnmatch_lines(["*OCR summary*", "cases *4"])
    serial, parallel = load_report(suite, "serial.json"), load_report(suite, "parallel.json")
    volatile = ("duration_s", "inference_s", "started")
    assert [r["id"] for r in parallel["results"]] == [r["id"] for r in serial["results"]]
    differing = [
        (s["id"], key, s[key], p.get(key))
        for s, p in zip(serial["results"], parallel["results"], strict=True)
        for key in s.keys() | p.keys()
        if key not in volatile and s.get(key) != p.get(key)
    ]
    assert not differing, differing  # (id, key, serial, parallel)

    def timeless(summary: dict) -> dict:  # engine times differ from run to run
        return {k: timeless(v) if isinstance(v, dict) else v for k, v in summary.items() if k != "performance"}

    assert timeless(parallel["summary"]) == timeless(serial["summary"])
    assert parallel["engines"] == serial["engines"]
    assert parallel["run"]["workers"] == 2


def test_entry_point_engine_types_are_registered(suite):
    suite.image("a.tif", None)
    suite.pytester.makepyfile(
        upper_engine="""
from pytest_ocr.engines import Recognition

class Upper:
    def __init__(self, spec):
        pass
    def recognize(self, image):
        return Recognition(text="FROM ENTRY POINT")
    def fingerprint(self):
        return {"type": "upper", "version": "1", "config": {}}
"""
    )
    # An installed distribution as importlib.metadata sees it: a .dist-info on sys.path.
    dist = suite.path / "upper_engine-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: upper-engine\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pytest_ocr.engines]\nupper = upper_engine:Upper\n")
    suite.write(
        "s.ocr.yaml",
        "image: a.tif\nexpected: {text: FROM ENTRY POINT}\nengine: upper\nthresholds: {exact_match: '== 1'}\n",
    )
    result = suite.pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_missing_engine_binary_and_language_pack_are_errors_naming_the_fix(suite):
    suite.image("a.tif", "x")
    suite.write(
        "ocr-config.yaml",
        """
engines:
  fake: {type: python, function: sidecar_engine:read}
  no-binary: {type: tesseract, binary: /nonexistent/tesseract}
  no-language: {type: tesseract, lang: tlh}
""",
    )
    suite.write("s.ocr.yaml", "image: a.tif\nexpected: {text: x}\nengine: [fake, no-binary, no-language]\n")
    result = run(suite)
    result.assert_outcomes(passed=1, errors=2)
    out = result.stdout.str()
    assert (
        "Tesseract executable '/nonexistent/tesseract' not found; install it with `apt-get install tesseract-ocr`"
        in out
    )
    assert "Tesseract language(s) tlh not installed" in out and "apt-get install tesseract-ocr-tlh" in out


def test_engine_timeout_is_an_error_and_the_run_goes_on(suite):
    import sys

    suite.image("a.tif", "x")
    suite.write("slow.py", "import time, sys\ntime.sleep(30)\n")
    suite.write(
        "ocr-config.yaml",
        f"""
engines:
  fake: {{type: python, function: sidecar_engine:read}}
  slow: {{type: command, argv: ["{sys.executable}", slow.py, "{{image}}"], timeout: 1}}
""",
    )
    suite.write("s.ocr.yaml", "image: a.tif\nexpected: {text: x}\nengine: [slow, fake]\n")
    result = run(suite)
    result.assert_outcomes(passed=1, errors=1)
    assert "timed out after 1" in result.stdout.str()


# -- the metric catalogue through the plugin ----------------------------------------------


def test_requested_metrics_profiles_groups_and_denominators_reach_the_report(suite):
    suite.image("a.tif", "total 5.00\nfee 1.00")  # rows read in the other order
    suite.image("b.tif", "Stra\u00dfe")
    suite.write(
        "s.ocr.yaml",
        """
defaults:
  metrics: [fca, token_f1]
  group: batch-1
cases:
  - id: receipt
    image: a.tif
    expected: {text: "fee 1.00\\ntotal 5.00"}
    thresholds: {fca: ">= 0.99", bow_error: "== 0"}
    tags: [receipts]
  - id: street
    image: b.tif
    expected: {text: STRASSE}
    normalize: {profile: ocrd, casefold: true}
    cer_denominator: path
    group: batch-2
""",
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=2)
    report = load_report(suite)
    receipt, street = report["results"]
    assert receipt["metrics"]["fca"] == 1.0 and receipt["metrics"]["bow_error"] == 0.0
    assert receipt["metrics"]["cer"] > 0.5  # order-sensitive CER is wrecked by the row order
    assert set(receipt["metrics"]) >= {"cer", "wer", "ned", "exact_match", "fca", "token_f1", "bow_error"}
    assert street["metrics"]["cer"] == 0.0 and street["details"]["cer"]["unit"] == "grapheme"
    assert street["details"]["cer"]["denominator"] == "path" and street["group"] == "batch-2"
    groups = report["summary"]["fake"]["groups"]
    assert set(groups) == {"group:batch-1", "group:batch-2", "tag:receipts"}
    assert groups["tag:receipts"]["metrics"]["fca"]["macro"] == 1.0
    out = result.stdout.str()
    for line in ("fca macro", "token_f1 micro", "bow_error macro", "by tag and group (fake):", "group:batch-2"):
        assert line in out


def test_summary_has_confusions_and_a_bootstrap_interval(suite):
    refs, hyps = _three_cases(suite)
    result = run(suite, "--ocr-report", "report.json")
    out = result.stdout.str()
    assert "top confusions (fake):" in out and "cer macro 95% CI" in out
    summary = load_report(suite)["summary"]["fake"]
    low, high = summary["metrics"]["cer"]["ci95"]
    assert low <= summary["metrics"]["cer"]["macro"] <= high
    # bravo: "jumps over the lazy dog" -> "jumps ovr the lazy dgo"; charlie: O -> 0, a deleted 5
    confusions = {(r, h): n for r, h, n in summary["top_confusions"]}
    assert confusions[("O", "0")] == 1 and confusions[("e", "<DELETE>")] == 1
    assert sum(confusions.values()) == sum(
        r["details"]["cer"]["counts"]["errors"] for r in load_report(suite)["results"]
    )
    run(suite, "--ocr-report", "again.json")
    assert load_report(suite, "again.json")["summary"]["fake"]["metrics"]["cer"]["ci95"] == [low, high]


def test_unknown_metric_in_metrics_list_is_located(suite):
    suite.image("a.tif", "x")
    suite.write("s.ocr.yaml", "image: a.tif\nexpected: {text: x}\nmetrics: [fca, token_f]\nnormalize: ocrdd\n")
    result = run(suite)
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "s.ocr.yaml:3: metrics[1]: unknown metric 'token_f'; did you mean 'token_f1'?" in out
    assert (
        's.ocr.yaml:4: normalize: expected one of default, none, ocrd, tibetan, historic, markdown; got "ocrdd"' in out
    )


def test_reports_serialise_on_the_controller_too(suite):
    # A plugin such as pytest-reportlog serialises every report on the controller, where an
    # item's result arrived from a worker as a JSON string: it must serialise as it is, and
    # as the same string in a serial run.
    _three_cases(suite)
    suite.pytester.makeconftest(
        """
import json

CONFIG = []

def pytest_configure(config):
    CONFIG.append(config)

def pytest_runtest_logreport(report):
    config = CONFIG[0]
    data = config.hook.pytest_report_to_serializable(config=config, report=report)
    with open("reports.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps(data, default=repr) + "\\n")  # as pytest-reportlog: what is not JSON as text
"""
    )
    for args in ([], ["-n", "2"]):
        (suite.pytester.path / "reports.jsonl").unlink(missing_ok=True)
        result = suite.pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
        result.assert_outcomes(passed=3)
        lines = (suite.pytester.path / "reports.jsonl").read_text(encoding="utf-8").splitlines()
        results = [json.loads(json.loads(line)["ocr"]) for line in lines if "ocr" in json.loads(line)]
        # (under pytest-xdist the workers, loading the same conftest, serialise theirs as well)
        assert {r["case"] for r in results} == {"alpha", "bravo", "charlie"}, args
        assert all(r["outcome"] == "passed" for r in results), args
