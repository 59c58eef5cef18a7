"""What ``pytest-ocr history`` computes from the store, on SQLite and a real PostgreSQL server:
a suite that did not run at a commit carried (never measured), the mark where pytest-ocr's
version changed, a sparkline fitted to the terminal, and which runs prune removes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from helpers.history import session, text_suite
from sqlalchemy import update

from pytest_ocr.history import schema
from pytest_ocr.history.provenance import Provenance
from pytest_ocr.history.prune import prunable
from pytest_ocr.history.store import RunRow, Store
from pytest_ocr.history.trend import aggregate_regressions, trend
from pytest_ocr.history.url import parse
from pytest_ocr.metrics.registry import Scorer
from pytest_ocr.report.columns import width
from pytest_ocr.report.history_text import CARRIED, trend_lines
from pytest_ocr.run.record import RunRecord
from pytest_ocr.run.stored import load_report


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run's report: the example suite's receipts, read back from recorded outputs."""
    root = text_suite(tmp_path_factory.mktemp("run"), ("receipts.ocr.yaml",))
    done = session(root, "--ocr-report=report.json")
    assert done.returncode == 0, done.output[-2000:]
    return root / "report.json"


def _record(report: Path) -> RunRecord:
    return RunRecord.from_document(load_report(str(report)))


def _with_cer(record: RunRecord, value: float) -> RunRecord:
    s = record.summaries["tesseract"]
    summary = replace(s, metrics={**s.metrics, "cer": replace(s.metrics["cer"], macro=value)})
    return replace(record, summaries={**record.summaries, "tesseract": summary})


def test_a_suite_that_did_not_run_is_carried_and_a_new_version_is_marked(
    history_url: str, tmp_path: Path, report: Path
) -> None:
    record = _record(report)
    with Store.open(parse(history_url, tmp_path)) as store:
        at = {c: Provenance(commit=c * 40, branch="main") for c in "abc"}
        store.record(_with_cer(record, 0.10), at["a"], "lines")
        store.record(_with_cer(record, 0.20), at["a"], "pages")
        store.record(_with_cer(record, 0.11), at["b"], "lines")  # pages did not run at b
        third = store.record(_with_cer(record, 0.12), at["c"], "lines")
        store.record(_with_cer(record, 0.30), at["c"], "pages")
        with store.engine.begin() as connection:  # as if an older pytest-ocr had recorded a and b
            connection.execute(update(schema.runs).where(schema.runs.c.id < third.id).values(pytest_ocr="0.1.0"))
        t = trend(store, store.suites(), "main", 10, ["cer"], ["macro"])
    assert t.commits == ("a" * 40, "b" * 40, "c" * 40)
    series = {(s.suite, s.engine): s for s in t.series}
    pages = series["pages", "tesseract"].cells
    assert [c.value for c in pages] == [0.20, 0.20, 0.30] and [c.carried for c in pages] == [False, True, False]
    assert pages[1].run_id is None  # carried: no run measured it
    points = series["pages", "tesseract"].points()
    assert [p.value for p in points] == [0.20, None, 0.30]  # not measured, for step detection
    lines = series["lines", "tesseract"].cells
    assert [c.value for c in lines] == [0.10, 0.11, 0.12] and not any(c.carried for c in lines)
    assert any(change.startswith("pytest-ocr 0.1.0 -> ") for change in lines[2].changes)
    assert lines[1].changes == () and pages[2].changes == lines[2].changes
    text = trend_lines(t, None)
    row = next(line for line in text if line.startswith("pages ") and " tesseract " in line)
    assert row.endswith(f"▁{CARRIED}█") and row.split()[-2] == "0.3000"
    steps = {f.key.suite: f.step for f in aggregate_regressions(t) if f.key.engine == "tesseract"}
    # the carried commit is not a measurement: pages' step is at c, having happened at b or c
    assert (steps["pages"].position, steps["pages"].earliest, steps["pages"].commit) == (2, 1, "c" * 40)


def test_a_metric_scored_by_another_scorer_version_is_marked_with_both_versions(
    history_url: str, tmp_path: Path, report: Path
) -> None:
    """Each run records its metrics' scorers; a run recorded before they were (NULL) reads as
    scored by the first versions, so only a real change of a metric's scorer is marked."""
    record = _record(report)
    bumped = {**record.scorers, "cer": Scorer("pytest-ocr conventions", "2")}
    with Store.open(parse(history_url, tmp_path)) as store:
        at = {c: Provenance(commit=c * 40, branch="main") for c in "abc"}
        first = store.record(_with_cer(record, 0.10), at["a"], "lines")
        store.record(_with_cer(record, 0.11), at["b"], "lines")
        store.record(replace(_with_cer(record, 0.12), scorers=bumped), at["c"], "lines")
        with store.engine.begin() as connection:  # as a store of schema version 1 recorded it
            connection.execute(update(schema.runs).where(schema.runs.c.id == first.id).values(metric_scorers=None))
        [c, b, a] = store.runs("lines")  # newest first
        t = trend(store, store.suites(), "main", 10, ["cer", "wer"], ["macro"])
    assert a.metric_scorers == {} and a.scorer("cer") == record.scorers["cer"] == b.metric_scorers["cer"]
    assert c.metric_scorers["cer"] == Scorer("pytest-ocr conventions", "2")
    series = {s.metric: s.cells for s in t.series if s.engine == "tesseract"}
    assert [cell.changes for cell in series["cer"]] == [
        (),
        (),
        ("cer scored by pytest-ocr conventions 1 -> pytest-ocr conventions 2",),
    ]
    assert [cell.changes for cell in series["wer"]] == [(), (), ()]


def test_the_sparkline_fits_the_terminal_and_says_how_many_commits_it_draws(
    history_url: str, tmp_path: Path, report: Path
) -> None:
    record = _record(report)
    with Store.open(parse(history_url, tmp_path)) as store:
        for i in range(60):
            store.record(_with_cer(record, 0.1 + (0.05 if i >= 40 else 0)), Provenance(f"{i:040x}", "main"), "s")
        t = trend(store, ["s"], "main", 60, ["cer"], ["macro"])
        found = aggregate_regressions(t)
    lines = trend_lines(t, 60)
    row = next(line for line in lines if line.startswith("s "))
    drawn = len(row.split()[-1])
    assert 8 <= drawn < 60 and f"(the last {drawn} drawn)" in " ".join(line.strip() for line in lines[:2])
    assert all(width(line) <= 60 for line in lines), lines
    header = next(line for line in lines if line.startswith("suite "))
    # the columns line up under their headings, also when every suite name is shorter than "suite"
    assert (header.index("engine"), header.index("metric")) == (
        len("s") + len(row[1:]) - len(row[1:].lstrip()),
        row.index("cer "),
    )
    assert len(trend_lines(t, None)[2].split()[-1]) == 60  # no terminal: every commit
    assert [(f.key.engine, f.step.commit) for f in found] == [("tesseract", f"{40:040x}")]
    assert found[0].step.size == pytest.approx(0.05)


def _run(id: int, suite: str, branch: str | None, commit: str | None) -> RunRow:
    return RunRow(id, suite, commit, branch, (), None, 1, "", "", 0.0, "complete", 1, None, None, None, "", {}, {}, "")


def test_prune_keeps_the_latest_commits_of_each_suite_and_branch_with_all_their_attempts() -> None:
    runs = [
        _run(1, "s", "main", "a"),
        _run(2, "s", "main", "b"),
        _run(3, "s", "main", "c"),
        _run(4, "s", "main", "c"),  # a second attempt of c
        _run(5, "s", "feature", "x"),
        _run(6, "t", "main", "a"),
        _run(7, "s", None, None),
        _run(8, "s", None, None),
    ]
    assert [r.id for r in prunable(runs, 1)] == [1, 2, 7]
    assert [r.id for r in prunable(runs, 2)] == [1]
    with pytest.raises(ValueError):
        prunable(runs, 0)
