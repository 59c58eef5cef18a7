"""``--fail-on`` rules of ``pytest-ocr compare``: what a comparison of two runs fails on
(run/comparison.py judges them).

- ``METRIC:TOLERANCE``: any item whose METRIC got worse by more than TOLERANCE
  (``cer:+0.005`` absolute, ``cer:+10%`` relative to the old value);
- ``METRIC.macro:TOLERANCE`` / ``METRIC.micro:TOLERANCE``: an engine's aggregate got
  worse by more than TOLERANCE, optionally with a confidence (``cer.macro:+0.002@95%``);
- ``errors``: an item that was measured in BASE (passed or failed) is an error in HEAD.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cases.rules import Tolerance, ToleranceError, item_tolerance
from ..errors import OcrError, did_you_mean
from ..metrics import METRICS

KINDS = ("macro", "micro")


class RuleError(OcrError, ValueError):
    """A ``--fail-on`` rule that cannot be parsed."""


@dataclass(frozen=True)
class Rule:
    scope: str  # "case", "macro", "micro" or "errors"
    metric: str | None = None
    tolerance: Tolerance | None = None

    def __str__(self) -> str:
        if self.scope == "errors":
            return "errors"
        name = self.metric if self.scope == "case" else f"{self.metric}.{self.scope}"
        return f"{name}:+{self.tolerance}"


RULE_FORMS = (
    "METRIC:TOLERANCE (cer:+0.005, cer:+10%), METRIC.macro:TOLERANCE, METRIC.micro:TOLERANCE "
    "(optionally with a confidence: cer.macro:+0.002@95%) or errors"
)


def parse_rule(text: str) -> Rule:
    """A ``--fail-on`` rule; anything else raises RuleError saying what was expected."""
    stripped = text.strip()
    if stripped == "errors":
        return Rule("errors")
    name, colon, tolerance = stripped.partition(":")
    name = name.strip()
    if not colon:
        raise RuleError(f"bad rule {text!r}: expected {RULE_FORMS}")
    if name == "errors":
        raise RuleError(f"bad rule {text!r}: errors takes no tolerance (write just: errors)")
    metric, dot, kind = name.partition(".")
    if dot and kind not in KINDS:
        raise RuleError(f"bad rule {text!r}: an aggregate is METRIC.macro or METRIC.micro, not {name!r}")
    if metric not in METRICS:
        hint = did_you_mean(metric, METRICS) or f" (known: {', '.join(sorted(METRICS))})"
        raise RuleError(f"bad rule {text!r}: unknown metric {metric!r}{hint}")
    try:
        parsed = Tolerance.parse(tolerance.strip()) if dot else item_tolerance(metric, tolerance.strip())
    except ToleranceError as exc:
        raise RuleError(f"bad rule {text!r}: {exc}") from None
    return Rule(kind if dot else "case", metric, parsed)


def parse_rules(texts: Sequence[str]) -> list[Rule]:
    return [parse_rule(t) for t in texts]
