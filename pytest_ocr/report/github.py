"""GitHub Actions: error annotations at the case file's line, and the job's step summary.

Used only when ``GITHUB_ACTIONS=true``. Workflow commands are lines on the job's
output; their values are escaped as GitHub's toolkit does, so OCR text (untrusted)
cannot end a command early or start another one.
"""

from __future__ import annotations

from pathlib import Path

from ..compare import compare
from ..results import CaseResult, Summary
from . import json_report
from .failure import failure_reasons
from .markdown import run_markdown

MAX_ANNOTATIONS = 50  # GitHub shows at most 10 errors per step anyway; the summary lists the rest


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(file: str | None, line: int | None, title: str, message: str) -> str:
    where = f"file={_property(file)},line={line}," if file else ""
    return f"::error {where}title={_property(title)}::{_data(message)}"


def _reason(result: CaseResult) -> str:
    if result.outcome == "error":
        return result.error or "error"
    return "\n".join(failure_reasons(result.checks, result.baseline)) or result.outcome


def annotations(results: list[CaseResult], gate_results) -> list[str]:
    """One ``::error`` per failed or errored item at its case file and line, and per failed gate."""
    lines = []
    for r in sorted(results, key=lambda r: r.id):
        if r.outcome in ("failed", "error"):
            lines.append(_command(r.file, r.line or 1, f"OCR {r.outcome}: {r.case} on {r.engine}", _reason(r)))
    for g in gate_results:
        if not g.passed:
            file, _, line = (g.gate.get("source") or "").rpartition(":")
            lines.append(_command(file or None, int(line) if line.isdigit() else None, f"OCR gate: {g.name}",
                                  g.message))
    if len(lines) > MAX_ANNOTATIONS:
        lines = lines[:MAX_ANNOTATIONS] + [f"::warning::{len(lines) - MAX_ANNOTATIONS} more OCR failures: see the "
                                           f"step summary or the JSON report"]
    return lines


def append_step_summary(path: Path, results: list[CaseResult], summaries: dict[str, Summary], gate_results,
                        baseline=None) -> None:
    """Append the run's Markdown summary (with deltas against the baseline) to
    ``$GITHUB_STEP_SUMMARY``."""
    gates = [g.to_dict() for g in gate_results]
    document = json_report.build(results, summaries, {}, [], gates)
    comparison = compare(baseline.document, document, []) if baseline is not None and baseline.document else None
    with path.open("a", encoding="utf-8") as summary:
        summary.write(run_markdown(document, comparison, gates) + "\n")
