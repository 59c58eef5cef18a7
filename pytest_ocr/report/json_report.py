"""The JSON report (``--ocr-report PATH``), written atomically."""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from dataclasses import asdict
from importlib import resources
from pathlib import Path

from .. import __version__
from ..engines import fingerprint_id
from ..results import CaseResult, Summary, json_safe

SCHEMA_VERSION = 1
SCHEMA_FILE = "report.schema.json"


def report_schema() -> dict:
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def record(result: CaseResult) -> tuple[dict, dict | None]:
    """A result as the report stores it (its engine fingerprint replaced by the
    fingerprint's id), and the fingerprint, which the report keeps once per engine."""
    data = result.to_dict()
    fingerprint = data.pop("fingerprint")
    data["fingerprint_id"] = fingerprint_id(fingerprint) if fingerprint else None
    return data, fingerprint


def build(
    results: list[CaseResult], summaries: dict[str, Summary], run: dict, invalid_files: list[dict] = (),
    gates: list[dict] = (),
    datasets: list[dict] = (),
) -> dict:
    """The report document: run metadata, engines with fingerprints, records, summary,
    aggregate gates, dataset accounting, and the case files that could not be loaded."""
    engines: dict[str, dict] = {}
    records = []
    for r in sorted(results, key=lambda r: r.id):
        data, fingerprint = record(r)
        if fingerprint and r.engine not in engines:
            engines[r.engine] = {**fingerprint, "fingerprint_id": data["fingerprint_id"]}
        records.append(data)
    return document(records, engines, summaries, run, invalid_files, gates, datasets)


def document(
    records: list[dict], engines: dict[str, dict], summaries: dict[str, Summary], run: dict,
    invalid_files: list[dict] = (), gates: list[dict] = (), datasets: list[dict] = (),
) -> dict:
    """The report document from records already in the report's form."""
    return json_safe({
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "pytest-ocr", "version": __version__},
        "run": {
            **run,
            "python": platform.python_version(),
            "platform": sys.platform,
        },
        "engines": engines,
        "results": records,
        "invalid_files": sorted(invalid_files, key=lambda f: f["file"]),
        "summary": {name: asdict(s) for name, s in summaries.items()},
        "gates": list(gates),
        "datasets": list(datasets),
    })


def write(path: Path, document: dict) -> None:
    """Write atomically: readers never see a half-written report, and a failure
    leaves any previous report in place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False, sort_keys=False)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
