"""Baselines from the history store (issue 29 point 3): ``--ocr-baseline history:main`` and
``history:merge-base[:BRANCH]`` in real pytest sessions, real git repositories (a clone with
its origin, branches, a merge-base) and real CI variables, on SQLite and on a real
PostgreSQL server. A run judged against history:main is judged exactly as against the JSON
report of that same run: the same verdicts, regressed items, tests of repeats and paired
statistics (with repeats of a sampling service and checks whose facts are lost)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_helpers import sampling
from helpers.history import git, merge, repository, session, text_suite
from helpers.postgres import PASSWORD

pytestmark = pytest.mark.slow  # pytest sessions

TIMES = {"started", "duration_s", "inference_s", "cached_inference_s", "rasterise_s"}


def report_of(root: Path, name: str) -> dict:
    return json.loads((root / name).read_text(encoding="utf-8"))


def judged(document: dict) -> dict:
    """What a run against its baseline decided: every item's verdict and comparison, the
    comparison of the run (engines, moves with their paired statistics, the tests of repeats)
    and the gates; without the run's times, the order its repeats came in, and the baseline's name."""
    return {
        "results": [{k: in_order(k, v) for k, v in r.items() if k not in TIMES} for r in document["results"]],
        "baseline": {k: v for k, v in document["baseline"].items() if k != "path"},
        "gates": document["gates"],
    }


def in_order(name: str, value: object) -> object:
    """An item's repeats in one order: they come back from the service in any order."""
    if name != "repeats" or not isinstance(value, dict):
        return value
    return {**value, "outputs": sorted(value["outputs"]), "metrics": sorted(value["metrics"], key=json.dumps)}


def sampled_suite(root: Path, url: str) -> list[tuple[bytes, str]]:
    """The sampling service's suite in ``root/example_suite`` (its own pytest.ini: the project),
    each case with two checks (facts) on the start and the end of its line, which may fail."""
    suite = root / "example_suite"
    items = sampling.suite(suite, url, n=12)
    cases = json.loads((suite / "sampled.ocr.yaml").read_text(encoding="utf-8"))
    cases["defaults"]["thresholds"]["checks_passed"] = ">= 0"  # a fact that fails fails no item: losing one does
    for case, (_, text) in zip(cases["cases"], items, strict=True):
        case["checks"] = [
            {"id": "start", "type": "present", "text": text[:15]},
            {"id": "end", "type": "present", "text": text[-15:]},
        ]
    (suite / "sampled.ocr.yaml").write_text(json.dumps(cases), encoding="utf-8")
    return items


def test_history_main_judges_a_run_as_that_runs_report_does(tmp_path: Path, history_url: str) -> None:
    server = sampling.SamplingServer()
    try:
        root = tmp_path / "project"
        items = sampled_suite(root, server.url)
        repository(root)
        repeats = ("--ocr-repeat=5", "--ocr-no-cache")
        server.use(sampling.readings(items), 11)
        base = session(root, *repeats, "--ocr-report=base.json", f"--ocr-history={history_url}")
        assert base.returncode == 0, base.output
        assert "OCR history: run 1 of suite example_suite" in base.stdout

        # The change, on a branch: its runs record there, so history:main stays main's run.
        git(root, "checkout", "-q", "-b", "feature")
        (root / "change.txt").write_text("worse\n", encoding="utf-8")
        git(root, "add", "change.txt")
        git(root, "commit", "-q", "-m", "worse")
        worse = sampling.readings(items, 0.05)
        server.use(worse, 12)
        from_file = session(root, *repeats, "--ocr-baseline=base.json", "--ocr-report=file.json")
        server.use(worse, 12)  # the same draws again
        from_history = session(
            root, *repeats, "--ocr-baseline=history:main", "--ocr-report=history.json", f"--ocr-history={history_url}"
        )
    finally:
        server.stop()
    assert from_file.returncode == from_history.returncode == 1, from_history.output
    file, history = report_of(root, "file.json"), report_of(root, "history.json")
    assert judged(history) == judged(file)
    assert history["baseline"]["path"].startswith("history:main (run 1 of suite example_suite, commit ")
    assert file["baseline"]["path"].endswith("base.json")

    # What was compared is all of it: repeats' tests, lost facts, paired statistics of both averages.
    comparison = file["baseline"]
    [engine] = comparison["engines"]
    assert engine["compared"] == 12 and engine["repeated"] == 12 and engine["regressed"]
    assert comparison["families"] and comparison["families"][0]["item_tests"] == 24  # cer and checks_passed
    assert {p["kind"] for m in engine["metrics"] for p in m["paired"]} == {"macro", "micro"}
    lost = [f for r in file["results"] for f in (r["baseline"] or {}).get("lost_facts", [])]
    assert lost, "no check that held before failed: the facts were not compared"
    assert "FAILED" in from_history.stdout and "vs baseline history:main (run 1" in from_history.stdout
