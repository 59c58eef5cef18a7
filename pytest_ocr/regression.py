"""Did a metric get worse than it was, by more than its tolerance?

Shared by the baseline comparison in the plugin (``--ocr-baseline``) and by
``pytest-ocr compare``. A tolerance is absolute (``0.005``: the value may get worse by
up to 0.005) or relative (``"10%"``: by up to 10 % of the old value). "Worse" follows
each metric's direction: up for CER, down for field F1.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .metrics import METRICS
from .thresholds import format_number

_RELATIVE = re.compile(r"^\s*\+?\s*([0-9]+\.?[0-9]*|\.[0-9]+)\s*%\s*$")
_ABSOLUTE = re.compile(r"^\s*\+?\s*([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$")


class ToleranceError(ValueError):
    pass


@dataclass(frozen=True)
class Tolerance:
    amount: float
    relative: bool = False  # amount is a fraction of the old value

    @classmethod
    def parse(cls, value: object) -> Tolerance:
        """``0.005``, ``"0.005"``, ``"+0.005"`` or ``"10%"``; anything else raises ToleranceError."""
        if isinstance(value, bool):
            raise ToleranceError(f"a tolerance is a number such as 0.005 or a percentage such as \"10%\", not {value!r}")
        if isinstance(value, (int, float)):
            if not math.isfinite(value) or value < 0:
                raise ToleranceError(f"a tolerance must be a finite number of 0 or more, not {value!r}")
            return cls(float(value))
        if isinstance(value, str):
            match = _RELATIVE.match(value)
            if match:
                return cls(float(match.group(1)) / 100, relative=True)
            if _ABSOLUTE.match(value):
                return cls(float(value.replace("+", "")))
        raise ToleranceError(f"a tolerance is a number such as 0.005 or a percentage such as \"10%\", not {value!r}")

    def allowed(self, old: float) -> float:
        """How much worse than ``old`` a value may get."""
        return abs(old) * self.amount if self.relative else self.amount

    def __str__(self) -> str:
        return f"{format_number(self.amount * 100)}%" if self.relative else format_number(self.amount)


EXACT = Tolerance(0.0)


@dataclass(frozen=True)
class Delta:
    """One metric of one item (or aggregate), before and after."""

    metric: str
    old: float
    new: float
    tolerance: Tolerance

    @property
    def change(self) -> float:
        return self.new - self.old

    @property
    def worse_by(self) -> float:
        """How much worse the new value is (negative: better), in the metric's direction."""
        return self.change if METRICS[self.metric].better == "lower" else -self.change

    @property
    def regressed(self) -> bool:
        # A float sum such as 0.1 + 0.005 must not turn an allowed change into a regression.
        return self.worse_by > self.tolerance.allowed(self.old) + 1e-12

    @property
    def verdict(self) -> str:
        if self.regressed:
            return "regressed"
        if self.worse_by < 0:
            return "better"
        return "worse" if self.worse_by > 0 else "same"

    def message(self) -> str:
        direction = "lower" if METRICS[self.metric].better == "lower" else "higher"
        return (f"{self.metric}: {format_number(self.old)} -> {format_number(self.new)} "
                f"({'+' if self.change >= 0 else ''}{format_number(self.change)}; {direction} is better; "
                f"tolerance {self.tolerance}): {self.verdict.upper() if self.regressed else self.verdict}")


def deltas(old: dict[str, float | None], new: dict[str, float | None], tolerances: dict[str, Tolerance]) -> list[Delta]:
    """Deltas of the metrics named in ``tolerances`` that both sides have a value for."""
    return [
        Delta(metric, old[metric], new[metric], tolerance)
        for metric, tolerance in tolerances.items()
        if metric in METRICS and old.get(metric) is not None and new.get(metric) is not None
    ]
