"""The text of a failed OCR item: where, each threshold with its value, and what differs:
the fields that did not match, the schema violations, the task's result, the text diff."""

from __future__ import annotations

from typing import Any

from ..metrics import FIELD_METRICS, Normalization
from ..run.result import CaseResult
from .diff import aligned_diff

SHOWN = 10  # schema errors, mismatched fields


def _short(value: object, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _fields(details: dict[str, Any], source: str | None) -> list[str]:
    lines = [
        f"fields (taken from the output by: {source}): {len(details['correct_fields'])} correct, "
        f"{len(details['incorrect_fields'])} incorrect, {len(details['missing_fields'])} missing, "
        f"{len(details['extra_fields'])} extra"
    ]
    for key, mismatch in list(details["mismatches"].items())[:SHOWN]:
        match = mismatch["match"]
        lines.append(
            f"  {key}: expected {_short(mismatch['expected'])}, got {_short(mismatch['extracted'])} "
            f"({match['type'] if isinstance(match, dict) else match})"
        )
    if details["missing_fields"]:
        lines.append(f"  missing: {', '.join(details['missing_fields'][:SHOWN])}")
    if details["extra_fields"]:
        lines.append(f"  extra: {', '.join(details['extra_fields'][:SHOWN])}")
    return lines


def _schema(details: dict[str, Any]) -> list[str]:
    if details.get("parsing_error"):
        return [f"the output is not valid JSON: {details['parsing_error']}"]
    errors = details.get("validation_errors", [])
    lines = [f"schema violations ({len(errors)}):"]
    lines += [f"  {e['pointer'] or '/'}: {e['message']}" for e in errors[:SHOWN]]
    return lines


def failure_text(result: CaseResult, what: str, location: str, normalization: Normalization) -> str:
    """A failed item's text: where, each check with its value, the baseline deltas, the
    warnings, what differs in fields, schema and task, and the aligned diff."""
    lines = [f"{result.case} on {result.engine}: {what} ({location})"]
    lines += ["  " + c.message() for c in result.checks]
    if result.regressed and result.baseline is not None:
        lines += ["  baseline: " + d.message() for d in result.baseline.deltas]
    lines += [f"  warning: {w}" for w in result.warnings]
    details = result.details
    field_details = next((details[m] for m in FIELD_METRICS if m in details), None)
    if field_details is not None:
        lines += ["", *_fields(field_details, result.fields_source)]
    if "schema_valid" in details and details["schema_valid"].get("counts", {}).get("valid") != 1:
        lines += ["", *_schema(details["schema_valid"])]
    task = details.get("task_success")
    if task is not None and task.get("error_type"):
        lines += ["", f"task ({task['task_type']}): {task['error_type']}, quality {task['quality']}"]
    if result.reference is not None and result.prediction is not None:
        lines.append("")
        lines += aligned_diff(result.reference, result.prediction, normalization)
    return "\n".join(lines)
