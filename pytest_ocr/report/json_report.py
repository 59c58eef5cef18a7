"""The JSON report (``--ocr-report PATH``): the run record as a JSON document, which
``--ocr-baseline`` and ``pytest-ocr compare`` read back (run/stored.py)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .. import __version__
from ..files import write_atomic
from ..run.comparison import Comparison, EngineComparison
from ..run.record import RunRecord
from ..run.stored import SCHEMA_VERSION
from ..storable import json_safe
from .paired_text import verdict, violation_message


def comparison_document(c: Comparison) -> dict[str, Any]:
    """The one JSON shape of a comparison of two runs: the JSON report's ``baseline`` and
    ``pytest-ocr compare --json``. What only compare has (each run's counts and aggregates
    per engine, every item in both, what came and went, the rules judged) follows when it
    made the comparison."""
    document: dict[str, Any] = {
        "path": c.path,
        "verb": c.verb,
        "records": c.records,
        "current": c.current,
        "matched": c.matched,
        "warnings": c.warnings(),
        "engines": [_engine(e, c.rules is not None) for e in c.engines],
        "families": [f.to_dict() for f in c.families],
    }
    if c.rules is not None:
        document |= {
            "rules": c.rules,
            "failed": c.failed,
            "violations": [
                {"rule": v.rule, "message": violation_message(v), "key": v.key, "engine": v.engine}
                for v in c.violations
            ],
            "decisions": [
                {
                    "rule": d.rule,
                    "engine": d.engine,
                    "paired": d.paired.to_dict(),
                    "violated": d.violated,
                    "verdict": verdict(d.paired, d.tolerance),
                }
                for d in c.decisions
            ],
            "notes": c.notes,
            "new_engines": c.new_engines,
            "removed_engines": c.removed_engines,
            "new_items": c.new_items,
            "removed_items": c.removed_items,
            "outcome_changes": [asdict(o) for o in c.outcome_changes],
            "cases": [{**asdict(case), "compared": [d.to_dict() for d in case.compared]} for case in c.cases],
        }
    return json_safe(document)


def _engine(e: EngineComparison, both_runs: bool) -> dict[str, Any]:
    found = {
        "engine": e.engine,
        "compared": e.compared,
        "new": e.new,
        "regressed": len(e.regressed),
        "regressed_items": [r.key for r in e.regressed],
        "metrics": [
            {
                "metric": m.metric,
                "n": m.n,
                "old_mean": m.old,
                "new_mean": m.new,
                "verdict": m.verdict,
                "paired": [p.to_dict() for p in m.paired],
            }
            for m in e.moves
        ],
        "config_changes": e.config_changes,
        "repeated": e.repeated,
        "unstable": e.unstable,
    }
    if both_runs:
        found |= {
            "base": e.base,
            "head": e.head,
            "aggregates": [{**asdict(d), "paired": d.paired.to_dict() if d.paired else None} for d in e.metrics],
            "base_stability": asdict(e.base_stability) if e.base_stability else None,
            "head_stability": asdict(e.head_stability) if e.head_stability else None,
        }
    return found


def _members(record: RunRecord) -> dict[str, Any]:
    """The report document, its results made JSON data one at a time as they are read."""
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "pytest-ocr", "version": __version__},
        "run": json_safe(record.run.to_dict()),
        "engines": json_safe(record.engines),
        "scorers": {name: scorer.to_dict() for name, scorer in record.scorers.items()},
        "results": (r.to_record() for r in record.results),  # made standard JSON where written
        "summary": json_safe({name: s.to_dict() for name, s in record.summaries.items()}),
        "gates": json_safe([g.to_dict() for g in record.gates]),
        "baseline": comparison_document(record.comparison) if record.comparison is not None else None,
        "datasets": json_safe([d.to_dict() for d in record.datasets]),
        "shard": json_safe(record.shard.to_dict()) if record.shard is not None else None,
        **({"rescored": record.rescored.to_dict()} if record.rescored is not None else {}),
    }


def document(record: RunRecord) -> dict[str, Any]:
    """The report document: run (with its status), engines with fingerprints, one record
    per item (sorted by key), per-engine summary, gates, baseline comparison, datasets, and
    what a shard's run records for the merge."""
    members = _members(record)
    return {**members, "results": [json_safe(r) for r in members["results"]]}


def write(path: Path, record: RunRecord) -> None:
    """The report written as it is made: one result at a time, never the whole document
    or its whole text in memory."""
    write_atomic(path, _pieces(_members(record)))


def dumps(value: Any) -> str:
    """Standard JSON text (no NaN, no Infinity), UTF-8 characters kept: indented, but each
    of the results on one line of its own. A report of 20,000 results is written in a tenth
    of the time this way (the C encoder, which indenting does not use), and a result stays
    one line to grep or diff."""
    if not isinstance(value, dict) or not isinstance(value.get("results"), list):
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return "".join(_pieces(value))


def _pieces(value: dict[str, Any]) -> Iterator[str]:
    for i, (key, member) in enumerate(value.items()):
        yield ("{\n" if i == 0 else ",\n") + f"  {json.dumps(key, ensure_ascii=False)}: "
        if key == "results":
            yield from _results(member)
        else:  # a JSON string holds no line break, so every line break here is the layout's
            yield json.dumps(member, indent=2, ensure_ascii=False, allow_nan=False).replace("\n", "\n  ")
    yield "\n}\n"


def _results(results: Iterable[Any]) -> Iterator[str]:
    opened = False
    for r in results:
        try:
            line = json.dumps(r, ensure_ascii=False, allow_nan=False)
        except ValueError:  # NaN or an infinity: null, as json_safe makes it
            line = json.dumps(json_safe(r), ensure_ascii=False, allow_nan=False)
        yield (",\n    " if opened else "[\n    ") + line
        opened = True
    yield "\n  ]" if opened else "[]"
