"""--ocr-results-dir: the run as {run_id}/config.json, results.json, summary.json
(ocr-metrics-spec.md, Benchmark Protocol), written so that it appears whole or not at all."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_ocr.report import json_report, results_dir
from pytest_ocr.run.record import RunInfo, RunRecord, build
from pytest_ocr.run.result import make_result

pytest_plugins = ["pytester"]

RUN_ID = re.compile(r"\d{8}T\d{6}\.\d{6}Z-[0-9a-f]{8}")


def run(suite, *args):
    return suite.pytester.runpytest("-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)


def read(path: Path) -> dict:
    def refuse(constant):
        raise AssertionError(f"{path} holds {constant}, which standard JSON does not")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def runs(directory: Path) -> list[Path]:
    return sorted(directory.iterdir())


def three_cases(suite) -> None:
    suite.image("alpha.tif", "Hello world")
    suite.image("bravo.tif", "The quick brown f0x")
    suite.image("charlie.tif", "nothing alike")
    suite.write(
        "s.ocr.yaml",
        """
defaults: {group: batch-1}
cases:
  - {id: alpha, image: alpha.tif, expected: {text: Hello world}}
  - {id: bravo, image: bravo.tif, expected: {text: The quick brown fox}, thresholds: {cer: "< 0.1"}}
  - {id: charlie, image: charlie.tif, expected: {text: The lazy dog}, thresholds: {cer: "< 0.1"}}
""",
    )


@pytest.mark.slow
def test_the_run_directory_holds_the_reports_contents(suite):
    three_cases(suite)
    suite.write("broken.ocr.yaml", "image: [\n")
    result = run(suite, "--ocr-report", "report.json", "--ocr-results-dir", "benchmarks/results")
    report = read(suite.path / "report.json")
    [run_dir] = runs(suite.path / "benchmarks/results")
    result.stdout.fnmatch_lines([f"OCR results: {run_dir}"])
    assert RUN_ID.fullmatch(run_dir.name)
    assert sorted(p.name for p in run_dir.iterdir()) == ["config.json", "results.json", "summary.json"]

    config = read(run_dir / "config.json")
    assert config == {
        "run_id": run_dir.name,
        "tool": report["tool"],
        "schema_version": 2,
        "run": report["run"],
        "engines": report["engines"],
        "scorers": report["scorers"],
        "case_files": ["broken.ocr.yaml", "s.ocr.yaml"],
    }
    assert config["engines"]["fake"]["type"] == "python" and config["engines"]["fake"]["fingerprint_id"]
    assert config["scorers"]["cer"] == {"scorer": "pytest-ocr conventions", "version": "1"}

    results = read(run_dir / "results.json")
    assert results["run_id"] == run_dir.name
    assert results["results"] == report["results"]  # the same records, image and engine first
    assert [list(r)[:6] for r in results["results"]] == [
        ["image", "engine", "reference", "prediction", "metrics", "outcome"]
    ] * 4
    assert [(r["image"], r["engine"], r["outcome"]) for r in results["results"]] == [
        (None, None, "invalid"),
        ("alpha.tif", "fake", "passed"),
        ("bravo.tif", "fake", "passed"),
        ("charlie.tif", "fake", "failed"),
    ]

    summary = read(run_dir / "summary.json")
    assert summary == {
        "run_id": run_dir.name,
        "summary": report["summary"],
        "gates": report["gates"],
        "datasets": report["datasets"],
        "baseline": None,
        "invalid_files": [{"file": "broken.ocr.yaml", "error": report["results"][0]["error"]}],
    }
    assert summary["summary"]["fake"]["groups"]["group:batch-1"]["cases"] == 3


def test_the_run_id_is_the_runs_start_in_utc_then_a_hash_so_names_sort_by_time():
    later, earlier = record(), record()
    later.run.started_at = "2026-11-22T11:00:00.250000+01:00"
    earlier.run.started_at = "2026-11-22T09:59:59.999999+00:00"
    later_id = results_dir.run_id(later, json_report.document(later))
    earlier_id = results_dir.run_id(earlier, json_report.document(earlier))
    assert later_id.startswith("20261122T100000.250000Z-")  # 11:00 at +01:00 is 10:00 UTC
    assert earlier_id < later_id
    assert earlier_id[-8:] != later_id[-8:]  # the reports differ in their start: so do their hashes


@pytest.mark.slow
def test_two_runs_give_two_directories_in_the_order_they_ran(suite):
    three_cases(suite)
    run(suite, "--ocr-report", "first.json", "--ocr-results-dir", "results")
    run(suite, "--ocr-report", "second.json", "--ocr-results-dir", "results")
    first, second = runs(suite.path / "results")
    assert read(first / "config.json")["run"] == read(suite.path / "first.json")["run"]
    assert read(second / "config.json")["run"] == read(suite.path / "second.json")["run"]


def record(started_at: float = 1763819735.123456, **values) -> RunRecord:
    result = make_result(
        **{
            "key": "s.ocr.yaml::a[e]",
            "id": "s.ocr.yaml::a[e]",
            "case": "a",
            "file": "s.ocr.yaml",
            "line": 1,
            "engine": "e",
            "image": "a.png",
            "reference": "x",
            "prediction": "y",
            "metrics": {"cer": 1.0},
            "outcome": "failed",
            "fingerprint": {"type": "python", "version": None, "config": {}},
            **values,
        }
    )
    return build([result], RunInfo.of(started_at, started_at + 1, 0))


def test_the_same_report_written_twice_is_two_run_directories(tmp_path):
    first = Path(results_dir.write(tmp_path, record()))
    second = Path(results_dir.write(tmp_path, record()))
    assert second.name == first.name + "-2"
    assert read(second / "config.json")["run_id"] == second.name
    assert read(first / "results.json")["results"] == read(second / "results.json")["results"]


def test_nothing_half_written_when_writing_fails(tmp_path):
    kept = Path(results_dir.write(tmp_path, record()))
    # results.json cannot be serialised: config.json was already written when it fails.
    broken = record(started_at=1763856000.0)
    broken.results[0].fields = {"not JSON": {1, 2}}
    with pytest.raises(TypeError):
        results_dir.write(tmp_path, broken)
    assert runs(tmp_path) == [kept]  # no new run directory, no temporary one left behind
    assert sorted(p.name for p in kept.iterdir()) == ["config.json", "results.json", "summary.json"]


def test_undefined_values_are_null_not_nan(tmp_path):
    run = record(metrics={"cer": float("nan"), "wer": float("inf")})
    run_dir = Path(results_dir.write(tmp_path / "new" / "dir", run))
    assert read(run_dir / "results.json")["results"][0]["metrics"] == {"cer": None, "wer": None}
    assert read(run_dir / "summary.json")["summary"]["e"]["metrics"]["cer"]["macro"] is None
