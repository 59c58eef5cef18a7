"""Threshold expressions such as ``"< 0.05"`` and the one predicate that judges them.

The verdict and its message come from the same comparison, so the number printed
is exactly the number compared.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import OcrError

OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}

_EXPRESSION = re.compile(r"^\s*(<=|>=|==|<|>)\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*$")


class ThresholdError(OcrError, ValueError):
    pass


@dataclass(frozen=True)
class Threshold:
    metric: str
    op: str
    bound: float

    @property
    def expression(self) -> str:
        return f"{self.op} {format_number(self.bound)}"

    def check(self, value: float) -> bool:
        return OPERATORS[self.op](value, self.bound)


def parse(metric: str, expression: object) -> Threshold:
    """Parse ``"<= 0.15"``; anything else raises ThresholdError saying what was expected."""
    if not isinstance(expression, str):
        raise ThresholdError(f'threshold for {metric!r} must be a string such as "< 0.05", not {expression!r}')
    match = _EXPRESSION.match(expression)
    if not match:
        raise ThresholdError(
            f"threshold for {metric!r} is {expression!r}; expected an operator "
            f'({" ".join(OPERATORS)}) followed by a number, e.g. "< 0.05"'
        )
    bound = float(match.group(2))
    if not math.isfinite(bound):
        raise ThresholdError(
            f'threshold for {metric!r} is {expression!r}; the bound must be a finite number, e.g. "< 0.05"'
        )
    return Threshold(metric, match.group(1), bound)


def format_number(value: float) -> str:
    """Shortest text that reads back as exactly this float (so printing never rounds)."""
    if not math.isfinite(value):
        return repr(float(value))
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


@dataclass(frozen=True)
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
