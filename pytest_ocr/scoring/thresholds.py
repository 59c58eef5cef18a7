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
    # Why the metric has no value on this case, when that is the data's doing (a page without
    # tables has no table TEDS): the check passes, saying so, as a page without tables has
    # no table to get wrong.
    not_applicable: str | None = None

    def message(self) -> str:
        t = self.threshold
        if self.not_applicable is not None:
            return f"{t.metric}: not applicable ({self.not_applicable}), expected {t.expression}: ok"
        if self.value is None:
            return f"{t.metric}: not computed (needs data this case does not have), expected {t.expression}: FAILED"
        verdict = "ok" if self.passed else "FAILED"
        return f"{t.metric} = {format_number(self.value)}, expected {t.expression}: {verdict}"

    # Not by the codec: the threshold is written as the metric and the expression a case
    # file gives (``"cer", "< 0.05"``), and read back by parsing them.
    def to_dict(self) -> dict[str, Any]:
        data = {
            "metric": self.threshold.metric,
            "expression": self.threshold.expression,
            "value": self.value,
            "passed": self.passed,
        }
        if self.not_applicable is not None:  # only then: reports of other checks stay as they were
            data["not_applicable"] = self.not_applicable
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Check:
        return cls(parse(data["metric"], data["expression"]), data["value"], data["passed"], data.get("not_applicable"))


def judge(
    thresholds: Iterable[Threshold],
    values: Mapping[str, float | None],
    not_applicable: Mapping[str, str] | None = None,
) -> list[Check]:
    """Judge each threshold against the computed values. A missing value fails, unless the
    metric does not apply to the case (``not_applicable``: metric -> why): that passes, saying why."""
    checks = []
    for t in thresholds:
        value = values.get(t.metric)
        why = (not_applicable or {}).get(t.metric) if value is None else None
        checks.append(Check(t, value, why is not None or (value is not None and t.check(value)), why))
    return checks


def not_applicable(values: Mapping[str, float | None], details: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The metrics without a value because they do not apply to the case, and why (their details')."""
    return {
        m: details[m]["not_applicable"]
        for m, v in values.items()
        if v is None and "not_applicable" in details.get(m, {})
    }
