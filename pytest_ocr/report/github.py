"""GitHub Actions: error annotations where each failure is declared, and the job's step summary.

Used only when ``GITHUB_ACTIONS=true``. Workflow commands are lines on the job's
output. Untrusted text in them (OCR text, error messages, file names, ids) is first
made visible (visible.py: control and bidi characters as escapes, ``##[`` inert), then
escaped as GitHub's toolkit does, so it cannot end a command early or start another.

An annotation's file is relative to the repository's root (``GITHUB_WORKSPACE``, else
the project directory the item keys use), which is how GitHub finds it in a pull
request's diff. A dataset item points at its own entry (the label file's line, its
ground-truth or layout file), not at the suite's ``dataset:`` line; an item that failed
on its checks, at the first failed check's own line (its ``checks:`` entry, its
olmOCR-Bench JSONL line).

GitHub shows at most 10 error annotations per step and drops the rest silently, so
the order says which ones people see: failed gates (never left out, whatever their
number), case files that could not be loaded, regressed items (worst first), items
over their thresholds (furthest first), errored items; a warning says how many were
left out, and the step summary lists them.
"""

# No ``from __future__ import annotations``: ``annotations`` is this module's own function
# (which the future import's name would clash with), and no annotation here needs it.
from collections.abc import Callable
from pathlib import Path

from ..run.comparison import regressed_first
from ..run.identity import relative
from ..run.record import RunRecord
from ..run.result import CaseResult
from ..scoring.verdict import reason_facts
from ..visible import visible
from .markdown import run_markdown
from .reasons import gate_source, gate_text, item_reasons, threshold_miss

MAX_ANNOTATIONS = 10  # GitHub's limit of error annotations per step; gates may go beyond it


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(file: str | None, line: int | None, title: str, message: str, kind: str = "error") -> str:
    where = f"file={_property(visible(file))},line={line or 1}," if file else ""
    return f"::{kind} {where}title={_property(visible(title))}::{_data(visible(message, multiline=True))}"


def repository_path(project: Path, workspace: str | Path | None) -> Callable[[str], str]:
    """A path as reports write it (relative to the project directory, or absolute) as
    annotations name it: relative to the repository's root when inside it, else absolute."""
    root = Path(workspace).resolve() if workspace else project

    def name(path: str) -> str:
        given = Path(path)
        return relative(given if given.is_absolute() else project / given, root)

    return name


def _item(result: CaseResult, path: Callable[[str], str], title: str) -> str:
    """An item's annotation: at its first failed check's line when checks failed it, else at
    its dataset entry when it has one, else at its case."""
    message = "\n".join(item_reasons(result))
    facts = reason_facts(result.checks, result.baseline, result.facts or ()) if result.outcome == "failed" else []
    fact = next((f for f in facts if f.file is not None and f.line is not None), None)
    if result.source_file is not None:
        message += f"\n(dataset item {result.case} of {path(result.file)}:{result.line})"
    if fact is not None and fact.file is not None:
        return _command(path(fact.file), fact.line, title, message)
    if result.source_file is not None:
        return _command(path(result.source_file), result.source_line, title, message)
    return _command(path(result.file), result.line, title, message)


def annotations(record: RunRecord, project: Path, workspace: str | Path | None = None) -> list[str]:
    """One ``::error`` per failed gate at its declaration, per case file that could not be
    loaded, and per failed or errored item at its entry, in that order of importance,
    capped at MAX_ANNOTATIONS (gates never left out) with a warning saying how many more.
    ``project``: the directory report paths are relative to; ``workspace``: the
    repository's root (``GITHUB_WORKSPACE``), when annotation paths are relative to another."""
    path = repository_path(project, workspace)
    gates = []
    for g in record.failed_gates:
        file, line = gate_source(g, path)
        gates.append(_command(file, line, f"OCR gate: {g.name}", gate_text(g, path)))

    failed = record.with_outcome("failed")
    regressed = regressed_first(failed)
    over = sorted((r for r in failed if not r.regressed), key=lambda r: (-threshold_miss(r), r.key))
    groups = [
        (
            "case files that could not be loaded",
            [
                _command(path(r.file), r.line, "OCR case file could not be loaded", r.error or "invalid")
                for r in record.with_outcome("invalid")
            ],
        ),
        ("regressed", [_item(r, path, f"OCR regressed: {r.case} on {r.engine}") for r in regressed]),
        ("over thresholds", [_item(r, path, f"OCR failed: {r.case} on {r.engine}") for r in over]),
        ("errors", [_item(r, path, f"OCR error: {r.case} on {r.engine}") for r in record.with_outcome("error")]),
    ]
    room = max(0, MAX_ANNOTATIONS - len(gates))
    lines, left_out = list(gates), []
    for what, commands in groups:
        lines += commands[:room]
        if len(commands) > room:
            left_out.append((len(commands) - room, what))
        room = max(0, room - len(commands))
    if left_out:
        parts = ", ".join(f"{n} {what}" for n, what in left_out)
        message = (
            f"{sum(n for n, _ in left_out)} more not annotated ({parts}; GitHub shows {MAX_ANNOTATIONS} error "
            f"annotations per step): see the step summary or the JSON report"
        )
        lines.append(_command(None, None, "More OCR failures", message, "warning"))
    return lines


def append_step_summary(path: Path, record: RunRecord, project: Path | None = None) -> None:
    """Append the run's Markdown summary to ``$GITHUB_STEP_SUMMARY``."""
    with path.open("a", encoding="utf-8") as summary:
        summary.write(run_markdown(record, project=project) + "\n")
