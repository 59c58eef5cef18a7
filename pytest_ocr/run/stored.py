"""A stored run read back: a JSON report (``--ocr-report``), validated against the
shipped report schema, as a RunRecord (for ``--ocr-baseline`` and ``pytest-ocr compare``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from .. import limits
from ..errors import OcrError
from ..files import UnreadableFile, decode_text, read_limited
from ..metrics.registry import FACTS, Scorer, first_scorers
from ..scoring.scored import recorded_steps, scored_texts
from .result import CaseResult

SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1 reports have no item keys: their node ids serve
SCHEMA_FILE = "report.schema.json"


class ReportError(OcrError, ValueError):
    """A file that cannot be read as a pytest-ocr report; the message names the file."""


def report_schema() -> dict[str, Any]:
    text = resources.files("pytest_ocr.report").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not standard JSON")


def _upgrade(document: dict[str, Any]) -> dict[str, Any]:
    """A version 1 report in version 2's shape (keys from node ids, no status)."""
    results = [{**r, "key": r["id"]} for r in document.get("results", [])]
    results += [
        {
            "key": f"{f['file']}::invalid-case-file",
            "id": f"{f['file']}::invalid-case-file",
            "case": "invalid-case-file",
            "file": f["file"],
            "line": 1,
            "engine": None,
            "image": None,
            "outcome": "invalid",
            "error": f["error"],
        }
        for f in document.get("invalid_files", [])
    ]
    run = {"status": "complete", "not_run": 0, **document.get("run", {})}
    document = {k: v for k, v in document.items() if k != "invalid_files"}
    return {**document, "schema_version": SCHEMA_VERSION, "results": results, "run": run, "datasets": []}


def load_report(path: str | Path, bounded: bool = False) -> dict[str, Any]:
    """A JSON report, validated. Raises ReportError naming the file and what is wrong:
    missing, not UTF-8, not JSON (with line and column), or not a pytest-ocr report
    (the first schema error with its JSON pointer). ``bounded``: a report larger than
    ``max_file_mb`` (limits.py) is refused unread, as a case file is."""
    path = Path(path)
    try:
        if bounded:
            active = limits.active()
            exceeded = functools.partial(limits.exceeded, "the report", name="max_file_mb", unit=" MB")
            text = decode_text(read_limited(path, "the report", active.max_file_bytes, exceeded))
        else:
            text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise ReportError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except UnreadableFile as exc:
        raise ReportError(f"{path}: {exc.message}") from None
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        document = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # NaN or Infinity
        raise ReportError(f"{path}: not JSON: {exc}") from None
    except RecursionError:
        raise ReportError(f"{path}: not a pytest-ocr report: nested too deeply") from None
    if not isinstance(document, dict) or not {"schema_version", "tool", "results"} <= document.keys():
        raise ReportError(
            f"{path}: not a pytest-ocr report (expected a JSON object with schema_version, tool, "
            f"results, ... as --ocr-report writes)"
        )
    if document["schema_version"] not in READABLE_VERSIONS:
        raise ReportError(
            f"{path}: report schema version {document['schema_version']!r}; this pytest-ocr reads "
            f"versions {', '.join(map(str, READABLE_VERSIONS))}"
        )
    if document["schema_version"] == 1:
        document = _upgrade(document)
    import jsonschema  # here: only a run that reads a stored report (a baseline, a merge) pays for it

    validator = jsonschema.Draft202012Validator(report_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        message = error.message
        if error.validator == "pattern" and "description" in error.schema:  # the pattern says it to no one
            message = f"expected {error.schema['description']}, got {error.instance!r}"
        where = _pointer(error.absolute_path) or "/"
        raise ReportError(f"{path}: not a valid pytest-ocr report: at {where}: {message}")
    seen: set[str] = set()
    for i, record in enumerate(document["results"]):
        if record["key"] in seen:
            raise ReportError(
                f"{path}: not a valid pytest-ocr report: at /results/{i}/key: duplicate key {record['key']!r}"
            )
        seen.add(record["key"])
    return document


def results_of(document: dict[str, Any]) -> list[CaseResult]:
    """The results of a validated report, with their engines' fingerprints."""
    engines = document.get("engines", {})
    return [CaseResult.from_dict(r, engines) for r in document["results"]]


def with_scored_texts(results: Iterable[CaseResult]) -> None:
    """Give the results read back the texts their text metrics compared (for the HTML
    report, scoring/scored.py), rebuilt from their texts and the steps recorded: a report
    holds no more."""
    from ..metrics.normalize import Normalization

    rebuilt: dict[tuple[str, ...], Normalization | None] = {}
    for r in results:
        steps = recorded_steps(r.details)
        if steps is not None and tuple(steps) not in rebuilt:
            rebuilt[tuple(steps)] = Normalization.from_steps(steps)
        normalization = None if steps is None else rebuilt[tuple(steps)]
        r.scored = scored_texts(r.reference, r.prediction, r.details, normalization)


def scored_names(results: Sequence[CaseResult]) -> set[str]:
    """The metrics the results have values of, and ``facts`` when some item has checks."""
    names = {m for r in results for m in r.metrics}
    return names | ({FACTS} if any(r.facts is not None for r in results) else set())


def stored_scorers(document: dict[str, Any], results: Sequence[CaseResult]) -> dict[str, Scorer]:
    """The scorers a (validated) report of these results records. A report written before
    they were recorded (pytest-ocr 0.x without ``scorers``) was made by every scorer at its
    first version (registry.FIRST_VERSIONS)."""
    if document.get("scorers") is not None:
        return {name: Scorer.from_dict(s) for name, s in document["scorers"].items()}
    return first_scorers(scored_names(results))
