"""`pytest-ocr score` gives the numbers the library (and so the plugin) gives."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import REPO, requires_tesseract

from pytest_ocr import metrics

pytestmark = pytest.mark.slow


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "pytest_ocr.cli", *args], capture_output=True, text=True)


@pytest.mark.parametrize("profile_name", ["default", "ocrd", "historic"])
def test_score_json_equals_the_library(tmp_path, profile_name):
    reference = "Die Finſterniſſe des 1801ſten Jahrs\nuͤber den Mond"
    hypothesis = "Die Finsternisse des 180iſten Jahrs\nüber dem Mond"
    (tmp_path / "ref.txt").write_text(reference, encoding="utf-8")
    (tmp_path / "hyp.txt").write_text(hypothesis, encoding="utf-8")
    names = ["cer", "wer", "fca", "token_f1"]
    args = [str(tmp_path / "ref.txt"), str(tmp_path / "hyp.txt"), "--normalize", profile_name, "--json"]
    result = run_cli("score", *args, *(f"--metric={n}" for n in names))
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    expected = metrics.score(reference, hypothesis, names, metrics.profile(profile_name))
    assert {n: printed[n]["value"] for n in names} == {n: expected[n].value for n in names}
    assert printed["cer"]["details"]["normalization"] == metrics.profile(profile_name).steps()


def test_score_errors_are_clear(tmp_path):
    (tmp_path / "ref.txt").write_bytes("Stra\xdfe".encode("latin-1"))
    result = run_cli("score", str(tmp_path / "ref.txt"), str(tmp_path / "missing.txt"))
    assert result.returncode == 2 and "is not UTF-8" in result.stderr
    (tmp_path / "ok.txt").write_text("x", encoding="utf-8")
    result = run_cli("score", str(tmp_path / "ok.txt"), str(tmp_path / "missing.txt"))
    assert result.returncode == 2 and "file not found:" in result.stderr
    result = run_cli("score", str(tmp_path / "ok.txt"), str(tmp_path / "ok.txt"), "--metric", "cerr")
    assert result.returncode == 2 and "unknown metric(s) cerr" in result.stderr
    result = run_cli("score", str(tmp_path / "ok.txt"), str(tmp_path / "ok.txt"), "--metric", "field_f1")
    assert result.returncode == 2 and "field_f1 need(s) expected fields, a schema or a task" in result.stderr
    assert "Traceback" not in result.stderr


def test_score_output_metrics_of_a_hypothesis(tmp_path):
    (tmp_path / "ref.txt").write_text("", encoding="utf-8")
    (tmp_path / "out.txt").write_text('```json\n{"total": 150}\n```', encoding="utf-8")
    result = run_cli("score", str(tmp_path / "ref.txt"), str(tmp_path / "out.txt"), "--metric", "json_valid", "--json")
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["json_valid"]["value"] == 1.0 and printed["json_valid"]["details"]["fenced"] is True


# -- score --case: the numbers an item reports --------------------------------------------

CASE_SUITES = ["receipts.ocr.yaml", "lines.ocr.yaml", "ocrd.ocr.yaml"]  # casefold + fields, NFKC, ocrd


@requires_tesseract
def test_score_case_reproduces_every_metric_of_a_real_run(tmp_path):
    # A real Tesseract run over the example suite's receipts (casefold, key fields with
    # matchers), lines (one with NFKC) and the OCR-D page (the ocrd profile); then each item's
    # output, as the report keeps it, scored with --case: every metric the same, exactly.
    suite = tmp_path / "suite"
    shutil.copytree(REPO / "example_suite", suite)
    report = tmp_path / "report.json"
    session = subprocess.run(
        [sys.executable, "-m", "pytest", *CASE_SUITES, "-p", "no:cacheprovider", "-q", "--ocr-report", str(report)],
        cwd=suite,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert session.returncode in (0, 1), session.stdout[-3000:]
    results = [r for r in json.loads(report.read_text())["results"] if r["metrics"]]
    assert len(results) >= 10 and {r["file"] for r in results} == set(CASE_SUITES)
    assert any("field_f1" in r["metrics"] for r in results)  # matchers took part
    for r in results:
        output = tmp_path / "output.txt"
        output.write_text(r["prediction"], encoding="utf-8")
        printed = run_cli("score", "--case", f"{suite / r['file']}::{r['case']}", str(output), "--json")
        assert printed.returncode == 0, printed.stderr
        values = {name: entry["value"] for name, entry in json.loads(printed.stdout).items()}
        assert values == r["metrics"], r["id"]


def test_score_case_errors_are_clear(tmp_path):
    (tmp_path / "s.ocr.yaml").write_text("image: x.jpg\nexpected: {text: hello}\n", encoding="utf-8")
    (tmp_path / "x.jpg").write_bytes((REPO / "example_suite" / "data" / "lines" / "rapidocr_en_rec.jpg").read_bytes())
    (tmp_path / "out.txt").write_text("hallo", encoding="utf-8")
    out = str(tmp_path / "out.txt")
    result = run_cli("score", "--case", f"{tmp_path / 's.ocr.yaml'}::nope", out)
    assert result.returncode == 2 and "--case: no case 'nope' in" in result.stderr and "its cases: s" in result.stderr
    result = run_cli("score", "--case", f"{tmp_path / 's.ocr.yaml'}::s", out, "--normalize", "ocrd")
    assert result.returncode == 2 and "the case decides the metrics and normalisation" in result.stderr
    result = run_cli("score", "--case", "s.ocr.yaml", out)
    assert result.returncode == 2 and "--case: FILE::ID" in result.stderr
    result = run_cli("score", "--case", f"{tmp_path / 's.ocr.yaml'}::s", out, "--json")
    assert result.returncode == 0 and json.loads(result.stdout)["cer"]["value"] == 0.2


def test_score_normalize_takes_a_case_files_mapping(tmp_path):
    (tmp_path / "ref.txt").write_text("Straße  ſind", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("STRASSE sind", encoding="utf-8")
    given = "{profile: historic, casefold: true, whitespace: trim}"
    result = run_cli("score", str(tmp_path / "ref.txt"), str(tmp_path / "hyp.txt"), "--normalize", given, "--json")
    assert result.returncode == 0, result.stderr
    expected = metrics.cer(
        "Straße  ſind", "STRASSE sind", normalize=metrics.profile("historic", casefold=True, whitespace="trim")
    )
    assert json.loads(result.stdout)["cer"]["value"] == expected == 1 / 13  # "strasse  sind": one space missing
    result = run_cli("score", str(tmp_path / "ref.txt"), str(tmp_path / "hyp.txt"), "--normalize", "{casefold: maybe}")
    assert result.returncode == 2 and result.stderr.startswith("pytest-ocr score: --normalize:")


def test_empty_reference_value_in_a_case_file_and_on_the_command_line(tmp_path):
    image = (REPO / "example_suite" / "data" / "lines" / "rapidocr_en_rec.jpg").read_bytes()
    (tmp_path / "x.jpg").write_bytes(image)
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    (tmp_path / "out.txt").write_text("three inserted words", encoding="utf-8")
    suite = tmp_path / "s.ocr.yaml"
    suite.write_text(
        "defaults: {empty_reference_value: errors}\ncases:\n  - {id: blank, image: x.jpg, expected: {text: ''}}\n",
        encoding="utf-8",
    )
    result = run_cli("score", "--case", f"{suite}::blank", str(tmp_path / "out.txt"), "--json")
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert (printed["cer"]["value"], printed["wer"]["value"]) == (20.0, 3.0)  # jiwer's: the error counts
    assert printed["cer"]["details"]["empty_reference_value"] == "errors"

    # a run aggregates: an infinite value would make every mean infinite, so case files refuse it
    suite.write_text(
        "defaults: {empty_reference_value: infinity}\ncases:\n  - {id: blank, image: x.jpg, expected: {text: ''}}\n",
        encoding="utf-8",
    )
    result = run_cli("score", "--case", f"{suite}::blank", str(tmp_path / "out.txt"))
    assert result.returncode == 2
    assert f'{suite}:1: defaults.empty_reference_value: expected one of one, errors; got "infinity"' in result.stderr

    args = [str(tmp_path / "empty.txt"), str(tmp_path / "out.txt"), "--empty-reference-value", "infinity"]
    result = run_cli("score", *args, "--metric", "cer")
    assert result.returncode == 0 and result.stdout.splitlines()[1].split()[:2] == ["cer", "inf"]
