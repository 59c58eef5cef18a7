"""The JSON report (``--ocr-report PATH``): the run record as a JSON document, which
``--ocr-baseline`` and ``pytest-ocr compare`` read back (run/stored.py)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .. import __version__
from ..files import write_atomic
from ..run.baseline import BaselineView
from ..run.record import RunRecord
from ..run.stored import SCHEMA_VERSION
from ..storable import json_safe


def _baseline(view: BaselineView) -> dict[str, Any]:
    return {
        "path": view.path,
        "verb": view.verb,
        "records": view.records,
        "current": view.current,
        "matched": view.matched,
        "warnings": view.warnings(),
        "engines": [
            {
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
            for e in view.engines
        ],
        "families": [f.to_dict() for f in view.families],
    }


def _members(record: RunRecord) -> dict[str, Any]:
    """The report document, its results made JSON data one at a time as they are read."""
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "pytest-ocr", "version": __version__},
        "run": json_safe(record.run.to_dict()),
        "engines": json_safe(record.engines),
        "results": (r.to_record() for r in record.results),  # made standard JSON where written
        "summary": json_safe({name: s.to_dict() for name, s in record.summaries.items()}),
        "gates": json_safe([g.to_dict() for g in record.gates]),
        "baseline": json_safe(_baseline(record.baseline)) if record.baseline is not None else None,
        "datasets": json_safe([d.to_dict() for d in record.datasets]),
        "shard": json_safe(record.shard.to_dict()) if record.shard is not None else None,
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
