"""A stored run to compare against (``--ocr-baseline PATH``) and the verbs that write it.

A baseline is a JSON report of an earlier run (``--ocr-report``), e.g. the main
branch's CI artifact. Each item is compared with its record there, metric by metric,
by the metric's direction and the case's tolerance. Writing one (``--ocr-baseline-write``)
only ever touches the records of items that ran in this session:

- ``create``: add records for items the baseline does not have; keep every other;
- ``update``: replace the records of every item that ran (accepting its results);
- ``ratchet``: add new items, and replace a record only where the item did not get
  worse on any compared metric and got better on at least one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .compare import fingerprint_changes, load_report
from .engines import fingerprint_id
from .regression import EXACT, Delta, Tolerance, deltas
from .report import json_report
from .results import CaseResult, summarize

VERBS = ("create", "update", "ratchet")


@dataclass
class Baseline:
    path: Path
    records: dict[str, dict] = field(default_factory=dict)  # item id -> report record
    engines: dict[str, dict] = field(default_factory=dict)  # engine -> fingerprint (with fingerprint_id)
    document: dict | None = None  # None: the file does not exist yet

    @classmethod
    def load(cls, path: Path, missing_ok: bool = False) -> Baseline:
        """Raises ValueError (e.g. compare.ReportError) for a file that is not a report;
        a missing file is an empty baseline when ``missing_ok`` (about to be written)."""
        if missing_ok and not path.exists():
            return cls(path)
        document = load_report(path)
        return cls(path, {r["id"]: r for r in document["results"]}, dict(document["engines"]), document)

    def changed_engine(self, engine: str, fingerprint: dict | None) -> list[str] | None:
        """What differs between the baseline's fingerprint of ``engine`` and this one;
        None when they are the same (or the baseline does not know the engine)."""
        old = self.engines.get(engine)
        if old is None or fingerprint is None or old.get("fingerprint_id") == fingerprint_id(fingerprint):
            return None
        old = {k: v for k, v in old.items() if k != "fingerprint_id"}
        return fingerprint_changes(old, fingerprint) or ["fingerprint differs"]


def tolerances(regression: dict[str, Tolerance], thresholded: list[str]) -> dict[str, Tolerance]:
    """What is compared with the baseline: the metrics given a tolerance (``regression:``)
    and every metric with a threshold (no worse at all, unless a tolerance says otherwise)."""
    return {**{m: EXACT for m in thresholded}, **regression}


def compare(record: dict | None, metrics: dict[str, float], compared: dict[str, Tolerance]) -> dict:
    """An item's comparison with its baseline record, JSON-safe, as CaseResult keeps it."""
    if record is None:
        return {"status": "new", "deltas": [], "regressed": False}
    found = deltas(record.get("metrics") or {}, metrics, compared)
    return {
        "status": "compared",
        "deltas": [{"metric": d.metric, "old": d.old, "new": d.new, "tolerance": str(d.tolerance),
                    "verdict": d.verdict, "message": d.message()} for d in found],
        "regressed": any(d.regressed for d in found),
    }


def _improved_only(old: dict, new: CaseResult) -> bool:
    """Ratchet: no compared metric worse, at least one better."""
    found = [Delta(m, old["metrics"][m], new.metrics[m], EXACT) for m in new.metrics
             if (old.get("metrics") or {}).get(m) is not None and new.metrics[m] is not None]
    return bool(found) and not any(d.worse_by > 0 for d in found) and any(d.worse_by < 0 for d in found)


def write(baseline: Baseline, results: list[CaseResult], verb: str, run: dict) -> dict[str, int]:
    """Write ``baseline.path`` with ``verb`` applied to this session's results; return
    how many records were added, replaced and kept. Errored and filtered items are
    never written: they measured nothing."""
    if verb not in VERBS:
        raise ValueError(f"--ocr-baseline-write must be one of {', '.join(VERBS)}, not {verb!r}")
    records = dict(baseline.records)
    engines = dict(baseline.engines)
    counts = {"added": 0, "replaced": 0, "kept": 0}
    for result in sorted(results, key=lambda r: r.id):
        if result.outcome in ("error", "filtered"):
            continue
        old = records.get(result.id)
        if old is None:
            take, counted = True, "added"
        elif verb == "update" or (verb == "ratchet" and _improved_only(old, result)):
            take, counted = True, "replaced"
        else:
            take, counted = False, "kept"
        counts[counted] += 1
        if take:
            record, fingerprint = json_report.record(result)
            record.pop("baseline", None)  # a baseline does not compare with itself
            records[result.id] = record
            if fingerprint:
                engines[result.engine] = {**fingerprint, "fingerprint_id": record["fingerprint_id"]}
    used = {r["engine"] for r in records.values()}
    kept = [CaseResult.from_dict(r) for r in records.values()]
    document = json_report.document([records[k] for k in sorted(records)],
                                    {k: engines[k] for k in sorted(engines) if k in used}, summarize(kept), run)
    json_report.write(baseline.path, document)
    return counts
