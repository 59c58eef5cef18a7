"""``--ocr-results-dir DIR``: the run stored as the benchmark layout of ocr-metrics-spec.md.

    DIR/{run_id}/config.json    engines with fingerprints, pytest-ocr version, run info, case files
    DIR/{run_id}/results.json   one record per image per engine (the JSON report's records)
    DIR/{run_id}/summary.json   per-engine aggregates, gates, dataset accounting, files that could not be loaded

run_id is the run's start as a UTC timestamp and a short hash of the report, so names
sort by time and two runs never share one. The files are written into a hidden
temporary directory that is renamed into place: the run directory appears complete or
not at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..files import write_atomic
from ..run.record import RunRecord
from . import json_report

# Records lead with what a benchmark table shows; every other key of the report's record follows.
LEADING = ("image", "engine", "reference", "prediction", "metrics", "outcome")


def write(directory: Path, record: RunRecord) -> str:
    """Write the run under ``directory`` (created if needed); returns the run directory."""
    report = json_report.document(record)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    base = run_id(record, report)
    target, n = directory / base, 2
    while target.exists():  # the same report written twice: a second run directory
        target, n = directory / f"{base}-{n}", n + 1
    # mkdir, not mkdtemp: the run directory keeps the umask's permissions, not 0700.
    temporary = directory / f".{target.name}.{secrets.token_hex(4)}.tmp"
    temporary.mkdir()
    try:
        for name, document in _files(record, report, target.name).items():
            write_atomic(temporary / name, json_report.dumps(document))
        os.rename(temporary, target)  # fails, rather than merges, if another writer took the name meanwhile
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return str(target)


def run_id(record: RunRecord, report: dict[str, Any]) -> str:
    """``20261122T135535.123456Z-1a2b3c4d``: when the run started (UTC; now if the
    record does not say) and the first 8 hex digits of the SHA-256 of its JSON report."""
    started = record.run.started_at
    try:
        when = datetime.fromisoformat(started).astimezone(timezone.utc) if started else datetime.now(timezone.utc)
    except ValueError:
        when = datetime.now(timezone.utc)
    digest = hashlib.sha256(json.dumps(report, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
    return f"{when:%Y%m%dT%H%M%S.%f}Z-{digest[:8]}"


def _files(record: RunRecord, report: dict[str, Any], run: str) -> dict[str, dict[str, Any]]:
    """The three files: the JSON report's members, as it writes them, sliced as the layout
    asks; which case files and which failed to load, from the record."""
    config = {
        "run_id": run,
        **{key: report[key] for key in ("tool", "schema_version", "run", "engines", "scorers")},
        "case_files": sorted({r.file for r in record.results}),
    }
    records = [{**{key: r[key] for key in LEADING if key in r}, **r} for r in report["results"]]
    summary = {
        "run_id": run,
        **{key: report[key] for key in ("summary", "gates", "datasets", "baseline")},
        "invalid_files": [{"file": r.file, "error": r.error} for r in record.with_outcome("invalid")],
    }
    return {"config.json": config, "results.json": {"run_id": run, "results": records}, "summary.json": summary}
