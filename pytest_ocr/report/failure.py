"""The text of a failed OCR item: where, each threshold with its value, and the diff."""

from __future__ import annotations

from ..cases.model import Case
from ..thresholds import Check
from .diff import aligned_diff


def failure_text(case: Case, engine: str, reference: str, hypothesis: str, checks: list[Check]) -> str:
    lines = [f"{case.id} on {engine}: thresholds not met ({case.location})"]
    lines += ["  " + c.message() for c in checks]
    lines.append("")
    lines += aligned_diff(reference, hypothesis, case.normalization)
    return "\n".join(lines)
