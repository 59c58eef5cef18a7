"""The verdict on one scored item: the one place that decides passed or failed, and why.

An item fails when a threshold is not met, or when it regressed against the baseline
(unless the run is accepting its results as the new baseline). The reasons are the
lines every output shows for a failure: the failure text, GitHub annotations, Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .facts import FactRecord
from .thresholds import Check
from .tolerance import ItemComparison


@dataclass(frozen=True)
class Verdict:
    passed: bool
    failed_checks: tuple[Check, ...]
    regressed: bool  # worse than the baseline beyond a tolerance, and that fails the item

    @property
    def outcome(self) -> Literal["passed", "failed"]:
        return "passed" if self.passed else "failed"

    @property
    def what(self) -> str:
        """``thresholds not met``, ``worse than the baseline``, or both."""
        parts = [
            w
            for w, present in (("thresholds not met", self.failed_checks), ("worse than the baseline", self.regressed))
            if present
        ]
        return " and ".join(parts)


def decide(checks: Sequence[Check], baseline: ItemComparison | None, regressions_fail: bool = True) -> Verdict:
    failed = tuple(c for c in checks if not c.passed)
    regressed = bool(regressions_fail and baseline is not None and baseline.regressed)
    return Verdict(not failed and not regressed, failed, regressed)


def reasons(checks: Sequence[Check], baseline: ItemComparison | None, facts: Sequence[FactRecord] = ()) -> list[str]:
    """Why an item failed, one line each: its failed thresholds, its regressions, then its facts."""
    lines = [c.message() for c in checks if not c.passed]
    if baseline is not None:
        lines += [d.message() for d in baseline.deltas if d.regressed]
    return lines + fact_reasons(checks, baseline, facts)


def fact_reasons(checks: Sequence[Check], baseline: ItemComparison | None, facts: Sequence[FactRecord]) -> list[str]:
    """Each fact that does not hold, when a threshold on checks_passed failed, and each
    fact that held in the baseline and no longer does."""
    lines = []
    if any(c.threshold.metric == "checks_passed" and not c.passed for c in checks):
        lines += [f.message() for f in facts if not f.passed]
    if baseline is not None:
        lines += [lost.message() for lost in baseline.lost_facts]
    return lines


def reason_facts(
    checks: Sequence[Check], baseline: ItemComparison | None, facts: Sequence[FactRecord]
) -> list[FactRecord]:
    """The facts ``fact_reasons`` names, in its order (a lost fact by its record in ``facts``)."""
    named = []
    if any(c.threshold.metric == "checks_passed" and not c.passed for c in checks):
        named += [f for f in facts if not f.passed]
    if baseline is not None:
        by_id = {f.id: f for f in facts}
        named += [by_id[lost.id] for lost in baseline.lost_facts if lost.id in by_id]
    return named


def filtered_reason(min_confidence: float | None, confidence: float | None) -> str | None:
    """Why an output is left out of the evaluation (a dataset's ``conf_threshold``): the
    engine's confidence is below the case's minimum. An engine that reports no
    confidence is never filtered."""
    if min_confidence is None or confidence is None or confidence >= min_confidence:
        return None
    return f"filtered: confidence {confidence:.4f} is below {min_confidence} (conf_threshold)"
