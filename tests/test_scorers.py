"""Versioned scorers (issue 30): every metric value names the scorer that made it and its
version, once per run, in the run record and every output read back (JSON report, results
directory, baseline file, history store); two runs are compared on a metric only when their
scorers agree, and a run, ``compare`` or ``merge`` that would compare values of different
scorers refuses, saying which. Real sessions: Tesseract on a real scan (``tess_phototest``).

A report "made by another version" is this run's report with its ``scorers`` edited, as a
report written by a pytest-ocr whose conventions were bumped would hold them.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from conftest import DATA, requires_tesseract

from pytest_ocr.metrics import METRICS
from pytest_ocr.metrics.registry import CONVENTIONS, FACTS, OLMOCR_BENCH, Scorer, scorer_of
from pytest_ocr.run.record import RunRecord
from pytest_ocr.run.stored import load_report

pytest_plugins = ["pytester"]
pytestmark = [pytest.mark.slow, requires_tesseract]

CASE = (
    "image: tess_phototest.tif\nexpected: {text_file: tess_phototest.gt.txt}\n"
    "thresholds: {cer: '< 0.01'}\nmetrics: [fca]\n"
)
OURS = {"scorer": "pytest-ocr conventions", "version": CONVENTIONS}


def project(root: Path, case: str = CASE) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in ("tess_phototest.tif", "tess_phototest.gt.txt"):
        shutil.copy(DATA / "pages" / name, root)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "phototest.ocr.yaml").write_text(case)
    return root


def pytest_run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", *args], cwd=root, capture_output=True, text=True, timeout=300
    )


def bumped(path: Path, out: Path, metric: str = "cer", to: str = "0") -> Path:
    """The report at ``path`` as a pytest-ocr whose ``metric`` scorer is at version ``to`` wrote it."""
    document = json.loads(path.read_text())
    document["scorers"][metric]["version"] = to
    out.write_text(json.dumps(document))
    return out


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose run made report.json."""
    root = project(tmp_path_factory.mktemp("scan"))
    ran = pytest_run(root, "--ocr-report=report.json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return root


def test_every_metric_names_its_scorer_and_the_facts_match_the_olmocr_the_tests_check_against() -> None:
    assert all(isinstance(m.scorer, Scorer) and m.scorer.version for m in METRICS.values())
    assert scorer_of("cer") == Scorer("pytest-ocr conventions", CONVENTIONS)
    assert scorer_of("checks_passed") == scorer_of(FACTS) == Scorer("olmocr-bench", OLMOCR_BENCH)
    # The fact checks are cross-checked against the installed olmocr (test_facts.py, test_olmocr_bench.py):
    # a newer one installed is the version they must name, once they agree with it.
    assert version("olmocr") == OLMOCR_BENCH


def test_a_run_records_its_scorers_once_in_the_report_and_results_directory(scan: Path) -> None:
    report = json.loads((scan / "report.json").read_text())
    assert report["scorers"] == {name: OURS for name in ("cer", "exact_match", "fca", "ned", "wer")}
    assert "scorer" not in json.dumps(report["results"])  # once per run, never per item
    ran = pytest_run(scan, "--ocr-results-dir=out")
    assert ran.returncode == 0, ran.stdout
    [config] = (scan / "out").glob("*/config.json")
    assert json.loads(config.read_text())["scorers"] == report["scorers"]


def test_a_report_without_scorers_reads_as_scored_by_the_first_versions(scan: Path, tmp_path: Path) -> None:
    document = json.loads((scan / "report.json").read_text())
    del document["scorers"]
    (tmp_path / "old.json").write_text(json.dumps(document))
    record = RunRecord.from_document(load_report(tmp_path / "old.json"))
    assert record.scorers["cer"] == Scorer("pytest-ocr conventions", "1")
    ran = pytest_run(scan, f"--ocr-baseline={tmp_path / 'old.json'}")
    assert ran.returncode == 0 and "not compared" not in ran.stdout, ran.stdout


def test_a_baseline_scored_otherwise_fails_the_run_on_a_gated_metric_and_notes_an_ungated_one(
    scan: Path, tmp_path: Path
) -> None:
    base = bumped(scan / "report.json", tmp_path / "baseline.json")
    bumped(base, base, "fca", "0")
    ran = pytest_run(scan, f"--ocr-baseline={base}", "--ocr-report=head.json")
    assert ran.returncode == 1, ran.stdout
    line = (
        f"cer: not compared: scored by pytest-ocr conventions {CONVENTIONS} here and pytest-ocr conventions 0 in "
        f"the baseline ({base}); re-score the baseline with: pytest-ocr rescore {base} -o "
        f"{tmp_path / 'baseline-rescored.json'}"
    )
    assert f"baseline scored alike: FAILED: {line}" in ran.stdout
    assert "fca: not compared: scored by pytest-ocr conventions" in ran.stdout  # fca has no threshold: a note
    head = json.loads((scan / "head.json").read_text())
    [check] = [g for g in head["gates"] if g["name"] == "baseline scored alike: cer"]
    assert not check["passed"]
    [item] = head["results"]
    assert item["outcome"] == "passed" and item["baseline"]["deltas"] == []  # cer was not compared as if alike
    assert [m["metric"] for e in head["baseline"]["engines"] for m in e["metrics"]] == ["wer"]


def test_compare_refuses_a_metric_scored_otherwise_and_a_rule_on_it_fails(scan: Path, tmp_path: Path) -> None:
    base = bumped(scan / "report.json", tmp_path / "base.json")
    same = cli(scan, "compare", "report.json", "report.json", "--fail-on", "cer:+0.01")
    assert same.returncode == 0, same.stdout + same.stderr
    found = cli(scan, "compare", str(base), "report.json", "--fail-on", "cer:+0.01")
    assert found.returncode == 1, found.stdout + found.stderr
    assert (
        "cer: not compared: scored by pytest-ocr conventions 1 here and pytest-ocr conventions 0 in the baseline"
        in (found.stdout)
    )


def test_merge_refuses_shards_scored_otherwise_in_one_line(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    (root / "second.ocr.yaml").write_text(CASE)
    for k in (1, 2):
        ran = pytest_run(root, f"--ocr-shard={k}/2", f"--ocr-report=s{k}.json")
        assert ran.returncode == 0, ran.stdout
    merged = cli(root, "merge", "s1.json", "s2.json", "-o", "m.json")
    assert merged.returncode == 0, merged.stderr
    bumped(root / "s2.json", root / "s2.json")
    refused = cli(root, "merge", "s1.json", "s2.json", "-o", "m2.json")
    assert refused.returncode == 4
    assert refused.stderr.splitlines() == [
        "pytest-ocr merge: s2.json and s1.json are shards scored differently: cer by pytest-ocr conventions 0 and "
        f"pytest-ocr conventions {CONVENTIONS}; merge the shards of one run (or re-score both with one pytest-ocr: "
        "pytest-ocr rescore)"
    ]
    assert not (root / "m2.json").exists()


def test_a_baseline_file_is_not_written_with_two_scorers_of_one_metric(scan: Path, tmp_path: Path) -> None:
    base = bumped(scan / "report.json", tmp_path / "b.json")
    before = base.read_text()
    ran = pytest_run(scan, f"--ocr-baseline={base}", "--ocr-baseline-write=create")
    assert ran.returncode == 1
    assert "could not be written" in ran.stdout and "cer: its records in" in ran.stdout
    assert base.read_text() == before


# -- pytest-ocr rescore ---------------------------------------------------------------------


def without_rescored(document: dict) -> dict:
    return {k: v for k, v in document.items() if k != "rescored"}


def test_rescoring_a_report_gives_its_numbers_to_the_bit_and_says_from_what(scan: Path) -> None:
    done = cli(scan, "rescore", "report.json", "-o", "again.json")
    assert done.returncode == 0, done.stderr
    assert "1 measured item(s) of report.json scored again; no engine ran" in done.stdout
    report, again = (json.loads((scan / name).read_text()) for name in ("report.json", "again.json"))
    assert without_rescored(again) == report  # every value, summary and gate, to the bit
    assert again["rescored"]["source"] == "report.json" and again["rescored"]["profile"] is None
    assert again["rescored"]["before"] == again["rescored"]["after"] == report["scorers"]
    load_report(scan / "again.json")  # a valid report


def test_rescoring_the_repeats_of_an_item_scores_every_stored_output(tmp_path: Path) -> None:
    root = project(tmp_path)
    ran = pytest_run(root, "--ocr-repeat=2", "--ocr-report=r.json")
    assert ran.returncode == 0, ran.stdout
    assert cli(root, "rescore", "r.json", "-o", "again.json").returncode == 0
    report, again = (json.loads((root / name).read_text()) for name in ("r.json", "again.json"))
    assert report["results"][0]["repeats"]["n"] == 2
    assert without_rescored(again) == report


def test_rescoring_with_a_profile_gives_the_numbers_of_a_fresh_run_with_it(tmp_path: Path) -> None:
    """The ground truth with every space doubled: the default profile collapses whitespace
    (no error), the ``none`` profile keeps it (errors)."""
    spaced = "expected: {text_file: spaced.txt}\nthresholds: {cer: '< 0.5'}\nmetrics: [fca]\n"
    for name, normalize in (("default", ""), ("none", "normalize: none\n")):
        root = project(tmp_path / name, f"image: tess_phototest.tif\n{spaced}{normalize}")
        (root / "spaced.txt").write_text((DATA / "pages" / "tess_phototest.gt.txt").read_text().replace(" ", "  "))
        ran = pytest_run(root, "--ocr-report=r.json")
        assert ran.returncode == 0, ran.stdout
    fresh = json.loads((tmp_path / "none" / "r.json").read_text())
    done = cli(tmp_path / "default", "rescore", "r.json", "-o", "none.json", "--profile", "none")
    assert done.returncode == 0, done.stderr
    rescored = json.loads((tmp_path / "default" / "none.json").read_text())
    [old] = json.loads((tmp_path / "default" / "r.json").read_text())["results"]
    [new], [want] = rescored["results"], fresh["results"]
    assert old["metrics"]["cer"] == 0 < new["metrics"]["cer"]  # the profile changed the numbers
    for key in ("metrics", "details", "checks", "outcome"):
        assert new[key] == want[key], key
    assert rescored["summary"]["tesseract"]["metrics"] == fresh["summary"]["tesseract"]["metrics"]
    assert rescored["rescored"]["profile"] == "none"


def test_a_case_changed_or_gone_since_the_report_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert pytest_run(root, "--ocr-report=r.json").returncode == 0
    (root / "phototest.ocr.yaml").write_text(CASE.replace("< 0.01", "< 0.02"))
    changed = cli(root, "rescore", "r.json", "-o", "new.json")
    hashed = json.loads((root / "r.json").read_text())["results"][0]["input_hash"]
    assert changed.returncode == 4
    assert changed.stderr.splitlines() == [
        "pytest-ocr rescore: phototest.ocr.yaml:1: phototest.ocr.yaml::phototest[tesseract]: its case or image "
        f"changed since it was scored (input hash {hashed}, now another); it cannot be re-scored (run it again)"
    ]
    (root / "phototest.ocr.yaml").unlink()
    gone = cli(root, "rescore", "r.json", "-o", "new.json")
    assert gone.returncode == 4
    assert gone.stderr.splitlines() == [
        f"pytest-ocr rescore: phototest.ocr.yaml:1: phototest.ocr.yaml::phototest[tesseract]: case file "
        f"{root / 'phototest.ocr.yaml'} is gone; it cannot be re-scored"
    ]
    assert not (root / "new.json").exists()


def test_a_baseline_rescored_as_the_refusal_says_is_compared_again(scan: Path, tmp_path: Path) -> None:
    base = bumped(scan / "report.json", tmp_path / "baseline.json")
    assert pytest_run(scan, f"--ocr-baseline={base}").returncode == 1
    fixed = cli(scan, "rescore", str(base), "-o", str(tmp_path / "baseline-rescored.json"))
    assert fixed.returncode == 0, fixed.stderr
    assert f"scorers changed: cer pytest-ocr conventions 0 -> pytest-ocr conventions {CONVENTIONS}" in fixed.stdout
    ran = pytest_run(scan, f"--ocr-baseline={tmp_path / 'baseline-rescored.json'}")
    assert ran.returncode == 0 and "not compared" not in ran.stdout, ran.stdout


def test_a_history_baseline_scored_otherwise_is_refused_and_its_run_keeps_its_scorers(tmp_path: Path) -> None:
    root = project(tmp_path)
    env = {**os.environ, "PYTEST_OCR_COMMIT": "a" * 40, "PYTEST_OCR_BRANCH": "main"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    assert run("--ocr-history").returncode == 0
    store = root / ".pytest-ocr" / "history.sqlite"
    with sqlite3.connect(store) as connection:
        [(recorded,)] = connection.execute("SELECT metric_scorers FROM runs").fetchall()
        assert json.loads(recorded)["cer"] == OURS
        bumped_scorers = json.loads(recorded) | {"cer": {"scorer": "pytest-ocr conventions", "version": "0"}}
        connection.execute("UPDATE runs SET metric_scorers = ?", (json.dumps(bumped_scorers),))
    env["PYTEST_OCR_COMMIT"] = "b" * 40
    ran = run("--ocr-baseline=history:main")
    assert ran.returncode == 1, ran.stdout
    assert (
        f"cer: not compared: scored by pytest-ocr conventions {CONVENTIONS} here and pytest-ocr conventions 0 in the "
        "baseline (history:main (run 1 of suite"
    ) in ran.stdout
    assert "run the baseline's commit again with this pytest-ocr to record it with these scorers" in ran.stdout


def test_a_gate_against_the_baseline_on_a_metric_scored_otherwise_fails_with_the_refusal(
    scan: Path, tmp_path: Path
) -> None:
    base = bumped(scan / "report.json", tmp_path / "baseline.json", "fca")
    ran = pytest_run(scan, f"--ocr-baseline={base}", "--ocr-gate=fca.macro:+0.5", "--ocr-report=gated.json")
    assert ran.returncode == 1, ran.stdout
    [gate] = [g for g in json.loads((scan / "gated.json").read_text())["gates"] if g["gate"]]
    assert not gate["passed"]
    assert gate["message"].startswith(
        "tesseract: fca.macro against the baseline: FAILED: fca: not compared: scored by pytest-ocr conventions "
        f"{CONVENTIONS} here and pytest-ocr conventions 0 in the baseline ({base})"
    )
    updated = pytest_run(scan, f"--ocr-baseline={base}", "--ocr-baseline-write=update")
    assert updated.returncode == 0, updated.stdout  # update accepts the run's values: the file now holds them
    assert json.loads(base.read_text())["scorers"]["fca"] == OURS


def test_a_pdf_page_checked_by_olmocr_bench_facts_is_rescored_to_the_bit(tmp_path: Path) -> None:
    """The example suite's document page: Tesseract on a PDF page rasterised at 300 dpi, its
    facts by olmOCR-Bench's scorer; its input hash is the raster's, which rescore makes again."""
    (tmp_path / "data" / "documents").mkdir(parents=True)
    shutil.copy(DATA / "documents" / "multi_column_miss.pdf", tmp_path / "data" / "documents")
    shutil.copy(DATA.parent / "documents.ocr.yaml", tmp_path)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    assert pytest_run(tmp_path, "--ocr-report=r.json").returncode == 0
    done = cli(tmp_path, "rescore", "r.json", "-o", "again.json")
    assert done.returncode == 0, done.stderr
    report, again = (json.loads((tmp_path / name).read_text()) for name in ("r.json", "again.json"))
    olmocr = {"scorer": "olmocr-bench", "version": OLMOCR_BENCH}
    assert report["scorers"] == {"checks_passed": olmocr, "facts": olmocr}
    assert without_rescored(again) == report
