"""The JSON report (``--ocr-report PATH``): the run record as a JSON document, which
``--ocr-baseline`` and ``pytest-ocr compare`` read back (run/stored.py)."""

from __future__ import annotations

import json
from typing import Any

from .. import __version__
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
                    {"metric": m.metric, "n": m.n, "old_mean": m.old, "new_mean": m.new, "verdict": m.verdict}
                    for m in e.moves
                ],
                "config_changes": e.config_changes,
            }
            for e in view.engines
        ],
    }


def document(record: RunRecord) -> dict[str, Any]:
    """The report document: run (with its status), engines with fingerprints, one record
        per item (sorted by key), per-engine summary, gates, baseline comparison, datasets, and
    what a shard's run records for the merge."""
    return json_safe(
        {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "pytest-ocr", "version": __version__},
            "run": record.run.to_dict(),
            "engines": record.engines,
            "results": [r.to_record() for r in record.results],
            "summary": {name: s.to_dict() for name, s in record.summaries.items()},
            "gates": [g.to_dict() for g in record.gates],
            "baseline": _baseline(record.baseline) if record.baseline is not None else None,
            "datasets": [d.to_dict() for d in record.datasets],
            "shard": record.shard.to_dict() if record.shard is not None else None,
        }
    )


def dumps(value: Any) -> str:
    """Standard JSON text (no NaN, no Infinity), UTF-8 characters kept: indented, but each
    of the results on one line of its own. A report of 20,000 results is written in a tenth
    of the time this way (the C encoder, which indenting does not use), and a result stays
    one line to grep or diff."""
    if not isinstance(value, dict) or not isinstance(value.get("results"), list):
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    members = []
    for key, member in value.items():
        if key == "results" and member:
            lines = ",\n".join(f"    {json.dumps(r, ensure_ascii=False, allow_nan=False)}" for r in member)
            text = f"[\n{lines}\n  ]"
        else:  # a JSON string holds no line break, so every line break here is the layout's
            text = json.dumps(member, indent=2, ensure_ascii=False, allow_nan=False).replace("\n", "\n  ")
        members.append(f"  {json.dumps(key, ensure_ascii=False)}: {text}")
    return "{\n" + ",\n".join(members) + "\n}\n"
