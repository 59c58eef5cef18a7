"""The text of a failed OCR item in pytest's traceback styles: where, each threshold with
its value, and what differs: the fields that did not match, the schema violations, the
task's result, the text diff. Numbers rounded for people (reasons.py); the JSON report
keeps them exact.

Every piece of text that comes from the engine or the case file is made visible (one
line each, see visible.py), so the failure text pytest prints, and the first line of it
in the short summary, hold no terminal control sequence and no workflow command."""

from __future__ import annotations

from typing import Any

from ..metrics import FIELD_METRICS, Normalization
from ..run.result import CaseResult
from ..scoring.facts import FactRecord
from ..visible import visible
from .columns import fit
from .diff import MAX_WINDOWS, aligned_diff
from .reasons import brief, check_text, delta_text, worsening

SHOWN = 10  # schema errors, mismatched fields


def _short(value: object, width: int = 60) -> str:
    text = repr(value)  # repr escapes hidden characters already; visible() makes workflow commands inert
    return visible(text if len(text) <= width else text[: width - 3] + "...")


def _names(names: list[str]) -> str:
    return ", ".join(visible(str(n)) for n in names[:SHOWN])


def _fields(details: dict[str, Any], source: str | None) -> list[str]:
    lines = [
        f"fields (taken from the output by: {source}): {len(details['correct_fields'])} correct, "
        f"{len(details['incorrect_fields'])} incorrect, {len(details['missing_fields'])} missing, "
        f"{len(details['extra_fields'])} extra"
    ]
    for key, mismatch in list(details["mismatches"].items())[:SHOWN]:
        match = mismatch["match"]
        lines.append(
            f"  {visible(str(key))}: expected {_short(mismatch['expected'])}, got {_short(mismatch['extracted'])} "
            f"({visible(str(match['type'] if isinstance(match, dict) else match))})"
        )
    if details["missing_fields"]:
        lines.append(f"  missing: {_names(details['missing_fields'])}")
    if details["extra_fields"]:
        lines.append(f"  extra: {_names(details['extra_fields'])}")
    return lines


def _schema(details: dict[str, Any]) -> list[str]:
    if details.get("parsing_error"):
        return [f"the output is not valid JSON: {visible(str(details['parsing_error']))}"]
    errors = details.get("validation_errors", [])
    lines = [f"schema violations ({len(errors)}):"]
    lines += [f"  {visible(e['pointer'] or '/')}: {visible(e['message'])}" for e in errors[:SHOWN]]
    return lines


STYLES = ("long", "short", "line")  # pytest's --tb: auto and native read as long; no prints nothing


def _facts(facts: list[FactRecord] | None) -> list[str]:
    """Every fact and its verdict, those that do not hold first."""
    if not facts:
        return []
    held = sum(f.passed for f in facts)
    lines = ["", f"checks: {held} of {len(facts)} hold"]
    lines += ["  " + visible(f.message()) for f in facts if not f.passed]
    lines += [f"  check {visible(f.id)} ({f.type}) holds" for f in facts if f.passed]
    return lines


def failure_line(result: CaseResult) -> str:
    """The failure on one line (``--tb=line``, the short test summary, JUnit's message):
    ``a.png on tesseract: cer = 0.1859 (expected < 0.05)``. Neither the case id nor the
    checks are ever cut: they are what a reader looks for."""
    return visible(f"{result.case} on {result.engine or ''}: {brief(result)}")


def failure_text(
    result: CaseResult,
    what: str,
    location: str,
    normalization: Normalization,
    style: str = "long",
    columns: int | None = None,
) -> str:
    """A failed item's text, fitted to ``columns``. ``long``: where, each check with its
    value, the baseline deltas, the warnings, what differs in fields, schema and task,
    and the aligned diff. ``short``: where, the failed checks and regressions, and the
    first window of the diff. ``line``: the one line of ``failure_line``."""
    if style == "line":
        return failure_line(result)
    short = style == "short"
    where = f"{what} ({visible(location)})"
    if short:  # pytest's section title names the item already
        lines = [where, *("  " + visible(check_text(c)) for c in result.checks if not c.passed)]
        lines += [f"  regressed: {visible(worsening(result))}"] if result.regressed else []
        lines += ["  " + visible(f.message()) for f in result.facts or () if not f.passed]
        lines += [f"  {len(result.warnings)} warning(s): --tb=long shows them"] if result.warnings else []
    else:
        lines = [f"{visible(result.case)} on {visible(result.engine or '')}: {where}"]
        lines += ["  " + visible(check_text(c)) for c in result.checks]
        if result.regressed and result.baseline is not None:
            lines += ["  baseline: " + visible(delta_text(d)) for d in result.baseline.deltas]
            lines += ["  baseline: " + visible(f.message()) for f in result.baseline.lost_facts]
        lines += [f"  warning: {visible(w)}" for w in result.warnings]
        lines += _facts(result.facts)
    details = result.details
    gap = [] if short else [""]  # long text parts apart; short text close together
    field_details = next((details[m] for m in FIELD_METRICS if m in details), None)
    indent = "  " if short else ""  # short text: every part under the one heading
    if field_details is not None:
        lines += [*gap, *(indent + f for f in _fields(field_details, result.fields_source)[: 1 if short else None])]
    if "schema_valid" in details and details["schema_valid"].get("counts", {}).get("valid") != 1:
        lines += [*gap, *(indent + e for e in _schema(details["schema_valid"])[: 2 if short else None])]
    task = details.get("task_success")
    if task is not None and task.get("error_type"):
        lines += [
            *gap,
            indent + visible(f"task ({task['task_type']}): {task['error_type']}, quality {task['quality']}"),
        ]
    if result.reference is not None and result.prediction is not None:
        lines += gap
        lines += aligned_diff(
            result.reference, result.prediction, normalization, windows=1 if short else MAX_WINDOWS, columns=columns
        )
    return visible("\n".join(fit(lines, columns)), multiline=True)  # the safety net (idempotent)
