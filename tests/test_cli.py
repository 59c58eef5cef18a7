"""`pytest-ocr score` gives the numbers the library (and so the plugin) gives."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pytest_ocr import metrics


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
