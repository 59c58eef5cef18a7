"""Judging values by thresholds: the one predicate, whose verdict and message come
from the same comparison, so the number printed is exactly the number compared."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..cases.rules import Threshold, format_number, parse


@dataclass(frozen=True, slots=True)  # a run keeps each item's to its end
class Check:
    threshold: Threshold
    value: float | None
    passed: bool

    def message(self) -> str:
        t = self.threshold
        if self.value is None:
            return f"{t.metric}: not computed (needs data this case does not have), expected {t.expression}: FAILED"
        verdict = "ok" if self.passed else "FAILED"
        return f"{t.metric} = {format_number(self.value)}, expected {t.expression}: {verdict}"

    # Not by the codec: the threshold is written as the metric and the expression a case
    # file gives (``"cer", "< 0.05"``), and read back by parsing them.
    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.threshold.metric,
            "expression": self.threshold.expression,
            "value": self.value,
            "passed": self.passed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Check:
        return cls(parse(data["metric"], data["expression"]), data["value"], data["passed"])


def judge(thresholds: Iterable[Threshold], values: Mapping[str, float | None]) -> list[Check]:
    """Judge each threshold against the computed values; a missing value fails."""
    checks = []
    for t in thresholds:
        value = values.get(t.metric)
        checks.append(Check(t, value, value is not None and t.check(value)))
    return checks
