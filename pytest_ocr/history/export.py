"""The store's runs as data for other tools: JSON (each run with its engines and aggregates,
in full precision, exactly as stored) or CSV (one row per run, engine, scope, metric and kind).

A CSV is opened in spreadsheets, which run a cell beginning with ``=``, ``+``, ``-`` or ``@``
as a formula (``=HYPERLINK(...)`` from a branch name or a suite's). Every text cell beginning
with one of those, a tab or a carriage return is written after a ``'``, OWASP's rule for CSV
injection; numbers are written as numbers (``-0.5`` stays one)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from typing import Any

from .store import AggregateRow, EngineRow, RunRow

FORMAT_VERSION = 1
RUN_COLUMNS = ("id", "suite", "commit", "branch", "attempt", "status", "commit_time", "recorded_at", "pytest_ocr")
AGGREGATE_COLUMNS = ("engine", "fingerprint_id", "scope", "metric", "kind", "value", "low", "high", "n")


def document(
    shown: str, runs: Sequence[RunRow], engines: Sequence[EngineRow], aggregates: Sequence[AggregateRow]
) -> dict[str, Any]:
    by_run_engines: dict[int, list[dict[str, Any]]] = {}
    for e in engines:
        by_run_engines.setdefault(e.run_id, []).append({k: v for k, v in asdict(e).items() if k != "run_id"})
    by_run_aggregates: dict[int, list[dict[str, Any]]] = {}
    for a in aggregates:
        by_run_aggregates.setdefault(a.run_id, []).append({k: v for k, v in asdict(a).items() if k != "run_id"})
    return {
        "pytest_ocr_history_export": FORMAT_VERSION,
        "store": shown,
        "runs": [
            {**asdict(r), "parents": list(r.parents), "engines": by_run_engines.get(r.id, []),
             "aggregates": by_run_aggregates.get(r.id, [])}
            for r in runs
        ],
    }  # fmt: skip


def csv_text(runs: Sequence[RunRow], engines: Sequence[EngineRow], aggregates: Sequence[AggregateRow]) -> Iterator[str]:
    """The CSV, a row at a time (a run without aggregates has one row, its engine columns empty)."""
    by_id = {r.id: r for r in runs}
    fingerprints = {(e.run_id, e.engine): e.fingerprint_id for e in engines}
    with_rows = {a.run_id for a in aggregates}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")

    def flushed(row: Sequence[object]) -> str:
        writer.writerow(row)
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    yield flushed([*RUN_COLUMNS, *AGGREGATE_COLUMNS])
    for a in aggregates:
        r = by_id[a.run_id]
        values = [_text(t) for t in (a.engine, fingerprints.get((a.run_id, a.engine), ""), a.scope, a.metric, a.kind)]
        yield flushed([*_run_cells(r), *values, _cell(a.value), _cell(a.low), _cell(a.high), a.n])
    for r in runs:
        if r.id not in with_rows:
            yield flushed([*_run_cells(r), *[""] * len(AGGREGATE_COLUMNS)])


def _run_cells(r: RunRow) -> list[object]:
    return [_cell(getattr(r, name)) for name in RUN_COLUMNS]


FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads a cell beginning with as a formula


def _cell(value: object) -> object:
    """A number as it is (a float in full precision), text made inert."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return value if isinstance(value, int) else _text(str(value))


def _text(text: str) -> str:
    return "'" + text if text.startswith(FORMULA) else text
