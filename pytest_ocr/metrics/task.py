"""Downstream task success: did the task run on the OCR output (an LLM extracting
fields, answering a question, classifying the document) get the expected result?

A task is a mapping ``{type, expected, result, min_quality}``:

- ``extraction``: expected and result are field mappings (may be nested); quality is
  the share of expected key paths whose value matches (the case's field matchers
  apply); success at quality >= min_quality, 0.8 unless given.
- ``qa``: expected and result are answers, equal after stripping, case folding and
  collapsing whitespace; quality 1 or 0.
- ``classification``: expected and result are labels, equal after stripping and case
  folding; quality 1 or 0.

A missing or null result is ``no_result`` with quality 0.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass

from .fields import caseless, field_scores, flatten, scalar_text

TASK_TYPES = ("extraction", "qa", "classification")
TASK_KEYS = ("type", "expected", "result", "min_quality")
# Quality a task needs to count as a success: the spec's 80% for extraction; qa and
# classification score 1 or 0, so only a right answer passes.
DEFAULT_MIN_QUALITY = {"extraction": 0.8, "qa": 1.0, "classification": 1.0}
FAILURES = {"extraction": "extraction_incomplete", "qa": "answer_incorrect", "classification": "classification_wrong"}


def check_task(task: object) -> None:
    """Raise ValueError naming what is wrong with a task mapping (for load-time checks;
    ``result`` may still be missing then)."""
    if not isinstance(task, Mapping):
        raise ValueError(f"a task is a mapping with {', '.join(TASK_KEYS)}, not {type(task).__name__}")
    unknown = sorted(set(task) - set(TASK_KEYS), key=str)
    if unknown:
        raise ValueError(f"unknown task key(s) {', '.join(map(str, unknown))}; known: {', '.join(TASK_KEYS)}")
    kind = task.get("type")
    if kind not in TASK_TYPES:
        raise ValueError(f"task type must be one of {', '.join(TASK_TYPES)}, not {kind!r}")
    expected = task.get("expected")
    if kind == "extraction":
        if not isinstance(expected, (Mapping, list)) or not flatten(expected):
            raise ValueError("an extraction task's expected must be a mapping with at least one field")
    elif expected is None or isinstance(expected, (Mapping, list)):
        raise ValueError(
            f"a {kind} task's expected must be a single {'answer' if kind == 'qa' else 'label'}, "
            f"not {type(expected).__name__}"
        )
    minimum = task.get("min_quality")
    if minimum is not None and (
        isinstance(minimum, bool)
        or not isinstance(minimum, numbers.Real)
        # typeshed's numbers.Real declares no __gt__ for the reflected 0 < Real (int, float, Fraction have it)
        or not 0 < minimum <= 1  # type: ignore[operator]
    ):
        raise ValueError(f"min_quality must be a number above 0 and at most 1, not {minimum!r}")


@dataclass(frozen=True)
class TaskOutcome:
    type: str
    success: bool
    quality: float
    min_quality: float
    error_type: str | None
    fields: dict | None = None  # extraction: which fields were correct, missing, incorrect

    def details(self) -> dict:
        details = {
            "task_type": self.type,
            "error_type": self.error_type,
            "quality": self.quality,
            "min_quality": self.min_quality,
        }
        if self.fields is not None:
            details.update(self.fields)
        return details


def _answer(value: object) -> str:
    return caseless(" ".join(scalar_text(value).split()))


def evaluate_task(task: Mapping, field_match: Mapping | None = None) -> TaskOutcome:
    """Score one task; ``field_match`` (key path -> matcher) applies to extraction."""
    check_task(task)
    kind, expected, result = task["type"], task["expected"], task.get("result")
    minimum = task.get("min_quality")
    minimum = DEFAULT_MIN_QUALITY[kind] if minimum is None else float(minimum)
    fields = None
    if result is None:
        return TaskOutcome(kind, False, 0.0, minimum, "no_result")
    if kind == "extraction":
        scores = field_scores(expected, result, field_match)
        counts = scores.counts
        quality = counts["correct"] / counts["expected"]
        fields = {
            "correct_fields": scores.correct,
            "missing_fields": scores.missing,
            "incorrect_fields": scores.incorrect,
            "mismatches": scores.mismatches,
        }
    elif kind == "qa":
        quality = 1.0 if _answer(expected) == _answer(result) else 0.0
    else:
        quality = 1.0 if caseless(scalar_text(expected).strip()) == caseless(scalar_text(result).strip()) else 0.0
    success = quality >= minimum
    return TaskOutcome(kind, success, quality, minimum, None if success else FAILURES[kind], fields)


def success_rate(counts: Mapping) -> float:
    return counts["successes"] / counts["tasks"] if counts["tasks"] else 0.0


def mean_quality(counts: Mapping) -> float:
    return counts["quality"] / counts["tasks"] if counts["tasks"] else 0.0
