"""Writing the baseline file (``--ocr-baseline-write VERB``), a JSON report of kept records.

Only the records of items that ran and measured something are touched (errored,
filtered, skipped items measured nothing):

- ``create``: add records for items the baseline does not have; keep every other;
- ``update``: replace the records of every item that ran (accepting its results);
- ``ratchet``: add new items, and replace a record only where the item did not get
  worse on any metric both have and got better on at least one.

The file is re-read under a lock when written, not when the run started: two runs
updating one baseline at once (disjoint ``-k`` selections, parallel CI jobs) take
turns, and each keeps what the other wrote.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..cases.rules import EXACT
from ..files import locked, write_atomic
from ..run.baseline import Baseline
from ..run.record import RunRecord, build
from ..run.result import CaseResult
from ..scoring.tolerance import deltas
from . import json_report


def _improved_only(old: CaseResult, new: CaseResult) -> bool:
    found = deltas(old.metrics, new.metrics, {m: EXACT for m in new.metrics})
    return bool(found) and not any(d.worse_by > 0 for d in found) and any(d.worse_by < 0 for d in found)


def _scored_alike(path: Path, stored: Baseline, kept: list[CaseResult], record: RunRecord) -> None:
    """One file holds values of one scorer per metric: records kept from the file whose metric
    this run scored otherwise would be compared as if alike later, so the file is not written."""
    theirs = {m for r in kept for m in r.metrics}
    for metric in sorted(theirs & record.scorers.keys()):
        old, new = stored.scorers.get(metric), record.scorers[metric]
        if old is not None and old != new:
            raise ValueError(
                f"{metric}: its records in {path} were scored by {old} and this run's by {new}, and a baseline holds "
                f"one scorer's values; re-score it first (pytest-ocr rescore {path} -o NEW) and write NEW"
            )


def write(path: Path, record: RunRecord, verb: str) -> str:
    """Apply ``verb`` to the baseline at ``path`` with this run's results; says what it did."""
    counts = {"added": 0, "replaced": 0, "kept": 0}
    with locked(path):
        stored = Baseline.load(path, missing_ok=True)
        results = dict(stored.results)
        written: set[str] = set()  # this run's records
        for result in record.results:
            if not result.measured:
                continue
            old = results.get(result.key)
            if old is None:
                counted = "added"
            elif verb == "update" or (verb == "ratchet" and _improved_only(old, result)):
                counted = "replaced"
            else:
                counted = "kept"
            counts[counted] += 1
            if counted != "kept":
                written.add(result.key)
                results[result.key] = dataclasses.replace(result, baseline=None)  # it does not compare with itself
        _scored_alike(path, stored, [r for key, r in results.items() if key not in written], record)
        kept = build(results.values(), record.run, scorers={**stored.scorers, **record.scorers})
        write_atomic(path, json_report.dumps(json_report.document(kept)))
    return f"{path}: {counts['added']} added, {counts['replaced']} replaced, {counts['kept']} kept as they were"
