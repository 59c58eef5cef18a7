"""GitHub Actions: error annotations at the case file's line, and the job's step summary.

Used only when ``GITHUB_ACTIONS=true``. Workflow commands are lines on the job's
output. Untrusted text in them (OCR text, error messages, file names, ids) is first
made visible (visible.py: control and bidi characters as escapes, ``##[`` inert), then
escaped as GitHub's toolkit does, so it cannot end a command early or start another.
"""

# No ``from __future__ import annotations``: ``annotations`` is this module's own function
# (which the future import's name would clash with), and no annotation here needs it.
from pathlib import Path

from ..run.record import RunRecord
from .markdown import run_markdown
from .visible import visible

MAX_ANNOTATIONS = 50  # GitHub shows at most 10 errors per step anyway; the summary lists the rest


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(file: str | None, line: int | None, title: str, message: str) -> str:
    where = f"file={_property(visible(file))},line={line or 1}," if file else ""
    return f"::error {where}title={_property(visible(title))}::{_data(visible(message, multiline=True))}"


def annotations(record: RunRecord) -> list[str]:
    """One ``::error`` per failed gate at its declaration, per case file that could not be
    loaded, and per failed or errored item at its case file and line."""
    lines = []
    for g in record.failed_gates:
        file, line = g.source
        lines.append(_command(file, line, f"OCR gate: {g.name}", g.message))
    for r in record.results:
        if r.outcome == "invalid":
            lines.append(_command(r.file, r.line, "OCR case file could not be loaded", r.error or "invalid"))
        elif r.outcome in ("failed", "error"):
            lines.append(_command(r.file, r.line, f"OCR {r.outcome}: {r.case} on {r.engine}", "\n".join(r.reasons())))
    if len(lines) > MAX_ANNOTATIONS:
        lines = lines[:MAX_ANNOTATIONS] + [
            f"::warning::{len(lines) - MAX_ANNOTATIONS} more OCR failures: see the step summary or the JSON report"
        ]
    return lines


def append_step_summary(path: Path, record: RunRecord) -> None:
    """Append the run's Markdown summary to ``$GITHUB_STEP_SUMMARY``."""
    with path.open("a", encoding="utf-8") as summary:
        summary.write(run_markdown(record) + "\n")
