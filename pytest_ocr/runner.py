"""Running one case on one engine: inputs checked, engine called, output scored.

Plain functions; the pytest item in plugin.py only sequences them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .cases.model import Case
from .engines import Engine, Recognition
from .images import check_image
from .metrics import DEFAULT_METRICS, MetricResult, score
from .thresholds import Check, judge


class CaseInputError(Exception):
    """The case's own inputs (image, ground truth file) are unusable."""


def read_reference(case: Case) -> str:
    if case.expected_text_file is None:
        return case.expected_text or ""
    path = case.expected_text_file
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CaseInputError(f"ground truth file not found: {path} (case {case.id} at {case.location})") from None
    except UnicodeDecodeError as exc:
        raise CaseInputError(
            f"ground truth file is not UTF-8: {path} ({exc.reason} at byte {exc.start}); "
            f"re-encode it as UTF-8 (case {case.id} at {case.location})"
        ) from None


def check_inputs(case: Case) -> str:
    """Check the image and return the reference text; raises CaseInputError."""
    try:
        check_image(case.image)
    except Exception as exc:
        raise CaseInputError(f"{exc} (case {case.id} at {case.location})") from None
    return read_reference(case)


@dataclass
class Timed:
    recognition: Recognition
    seconds: float


def recognize(engine: Engine, case: Case) -> Timed:
    start = time.perf_counter()
    recognition = engine.recognize(case.image)
    return Timed(recognition, time.perf_counter() - start)


def metric_names(case: Case) -> list[str]:
    """The default metrics, the ones the case asks for, and every metric it has a threshold on."""
    return list(dict.fromkeys([*DEFAULT_METRICS, *case.metrics, *(t.metric for t in case.thresholds)]))


@dataclass
class Evaluation:
    """Scores and threshold checks of one recognition, in the shape CaseResult stores."""

    metrics: dict[str, float]
    details: dict[str, dict]
    checks: list[Check]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def result_fields(self) -> dict:
        return {
            "outcome": "passed" if self.passed else "failed",
            "metrics": self.metrics,
            "details": self.details,
            "checks": [{"metric": c.threshold.metric, "expression": c.threshold.expression,
                        "value": c.value, "passed": c.passed} for c in self.checks],
        }


def evaluate(case: Case, reference: str, hypothesis: str) -> Evaluation:
    scores: dict[str, MetricResult] = score(
        reference, hypothesis, metric_names(case), case.normalization, case.cer_denominator
    )
    values = {name: s.value for name, s in scores.items()}
    return Evaluation(
        metrics=values,
        # the counts travel with each value so aggregation can pool them (micro)
        details={name: {**s.details, "counts": s.counts} for name, s in scores.items()},
        checks=judge(list(case.thresholds), values),
    )
