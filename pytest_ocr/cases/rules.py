"""The rules a case declares for its metrics, parsed when its file loads: thresholds
(``cer: "< 0.05"``) and regression tolerances (``cer: 0.005``, ``field_f1: "10%"``).
Judging values by them is scoring's (scoring/thresholds.py, scoring/tolerance.py).

Numbers print as the shortest text that reads back as exactly the float
(``format_number``), so the number printed is exactly the number compared.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from decimal import Decimal

from ..errors import OcrError

OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}

EXPRESSION = re.compile(r"^\s*(<=|>=|==|<|>)\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*$")


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
    match = EXPRESSION.match(expression)
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


_RELATIVE = re.compile(r"^\s*\+?\s*([0-9]+\.?[0-9]*|\.[0-9]+)\s*%\s*$")
_ABSOLUTE = re.compile(r"^\s*\+?\s*([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$")


class ToleranceError(OcrError, ValueError):
    pass


@dataclass(frozen=True)
class Tolerance:
    amount: float
    relative: bool = False  # amount is a fraction of the old value
    # With a confidence (``"0.002@95%"``), an aggregate regresses only when the interval of
    # its worsening at that confidence lies entirely above the tolerance (run/paired.py).
    confidence: float | None = None

    @classmethod
    def parse(cls, value: object) -> Tolerance:
        """``0.005``, ``"0.005"``, ``"+0.005"``, ``"10%"``, each optionally with a
        confidence (``"+0.005@95%"``); anything else raises ToleranceError."""
        if isinstance(value, bool):
            raise ToleranceError(f'a tolerance is a number such as 0.005 or a percentage such as "10%", not {value!r}')
        if isinstance(value, (int, float)):
            if not math.isfinite(value) or value < 0:
                raise ToleranceError(f"a tolerance must be a finite number of 0 or more, not {value!r}")
            return cls(float(value))
        if isinstance(value, str):
            text, at, level = value.partition("@")
            confidence = _confidence(value, level) if at else None
            match = _RELATIVE.match(text)
            amount = None
            if match:
                amount, relative = float(match.group(1)) / 100, True
            elif _ABSOLUTE.match(text):
                amount, relative = float(text.replace("+", "")), False
            if amount is not None:
                if not math.isfinite(amount):  # 400 nines are a float's infinity
                    raise ToleranceError(f"a tolerance must be a finite number of 0 or more, not {value!r}")
                return cls(amount, relative, confidence)
        raise ToleranceError(f'a tolerance is a number such as 0.005 or a percentage such as "10%", not {value!r}')

    def allowed(self, old: float) -> float:
        """How much worse than ``old`` a value may get."""
        return abs(old) * self.amount if self.relative else self.amount

    def __str__(self) -> str:
        amount = f"{format_number(self.amount * 100)}%" if self.relative else format_number(self.amount)
        return amount if self.confidence is None else f"{amount}@{format_number(round(self.confidence * 100, 6))}%"


def _confidence(value: str, level: str) -> float:
    match = _RELATIVE.match(level)
    percent = Decimal(match.group(1)) if match and "+" not in level else None
    if percent is None or not 50 <= percent < 100:
        raise ToleranceError(
            f"a confidence is a percentage from 50% to below 100% such as @95%, not @{level.strip()} in {value!r}"
        )
    return float(percent / 100)  # the float nearest the share written (99.9% is 0.999, not 0.9990000000000001)


EXACT = Tolerance(0.0)
