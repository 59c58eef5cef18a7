"""The text of a failed OCR item: where, each threshold with its value, and what differs:
the fields that did not match, the schema violations, the task's result, the text diff."""

from __future__ import annotations

from ..cases.model import Case
from ..thresholds import Check, ThresholdError
from ..thresholds import parse as parse_threshold
from .diff import aligned_diff

SHOWN = 10  # schema errors, mismatched fields


def _short(value: object, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _fields(details: dict, source: str | None) -> list[str]:
    lines = [f"fields (taken from the output by: {source}): {len(details['correct_fields'])} correct, "
             f"{len(details['incorrect_fields'])} incorrect, {len(details['missing_fields'])} missing, "
             f"{len(details['extra_fields'])} extra"]
    for key, mismatch in list(details["mismatches"].items())[:SHOWN]:
        match = mismatch["match"]
        lines.append(f"  {key}: expected {_short(mismatch['expected'])}, got {_short(mismatch['extracted'])} "
                     f"({match['type'] if isinstance(match, dict) else match})")
    if details["missing_fields"]:
        lines.append(f"  missing: {', '.join(details['missing_fields'][:SHOWN])}")
    if details["extra_fields"]:
        lines.append(f"  extra: {', '.join(details['extra_fields'][:SHOWN])}")
    return lines


def _schema(details: dict) -> list[str]:
    if details.get("parsing_error"):
        return [f"the output is not valid JSON: {details['parsing_error']}"]
    errors = details.get("validation_errors", [])
    lines = [f"schema violations ({len(errors)}):"]
    lines += [f"  {e['pointer'] or '/'}: {e['message']}" for e in errors[:SHOWN]]
    return lines


def failure_text(
    case: Case,
    engine: str,
    reference: str | None,
    hypothesis: str,
    checks: list[Check],
    details: dict[str, dict],
    fields_source: str | None = None,
    warnings: list[str] = (),
    regression: dict | None = None,
) -> str:
    failed = [c for c in checks if not c.passed]
    what = " and ".join(w for w, present in (("thresholds not met", failed), ("worse than the baseline", regression))
                        if present)
    lines = [f"{case.id} on {engine}: {what} ({case.location})"]
    lines += ["  " + c.message() for c in checks]
    if regression:
        lines += ["  baseline: " + d["message"] for d in regression["deltas"]]
    lines += [f"  warning: {w}" for w in warnings]
    field_details = next((details[m] for m in ("field_f1", "field_precision", "field_recall") if m in details), None)
    if field_details is not None:
        lines += ["", *_fields(field_details, fields_source)]
    if "schema_valid" in details and details["schema_valid"].get("counts", {}).get("valid") != 1:
        lines += ["", *_schema(details["schema_valid"])]
    task = details.get("task_success")
    if task is not None and task.get("error_type"):
        lines += ["", f"task ({task['task_type']}): {task['error_type']}, quality {task['quality']}"]
    if reference is not None:
        lines.append("")
        lines += aligned_diff(reference, hypothesis, case.normalization)
    return "\n".join(lines)


def check_message(check: dict) -> str:
    """A recorded check (as a report stores it) as the line the failure printed."""
    try:
        threshold = parse_threshold(check["metric"], check["expression"])
    except (ThresholdError, KeyError, TypeError):
        return f"{check.get('metric')} {check.get('expression')}: FAILED"
    return Check(threshold, check.get("value"), bool(check.get("passed"))).message()


def failure_reasons(checks: list[dict] | None, baseline: dict | None) -> list[str]:
    """Why a recorded item failed: its failing checks, then its regressions against the baseline."""
    reasons = [check_message(c) for c in checks or [] if not c.get("passed")]
    if isinstance(baseline, dict) and baseline.get("regressed"):
        reasons += [d["message"] for d in baseline.get("deltas") or []
                    if isinstance(d, dict) and d.get("verdict") == "regressed" and "message" in d]
    return reasons
