"""Did a metric get worse than it was, by more than its tolerance?

Shared by the baseline comparison of a run (``--ocr-baseline``) and by ``pytest-ocr
compare``, so that both count the same items as regressed. A tolerance (cases/rules.py)
is absolute (``0.005``: the value may get worse by up to 0.005) or relative (``"10%"``:
by up to 10 % of the old value). "Worse" follows each metric's direction (the metric registry's
``worse_by``): up for CER, down for field F1.

An item's comparison covers the metrics it has a threshold on (no worsening at all)
and those given a tolerance under ``regression:``; an item is *regressed* when one of
them got worse by more than its tolerance. That is the one definition of "regressed".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..cases.rules import EXACT, Tolerance, format_number
from ..metrics import METRICS
from .facts import FactRecord

# A float sum such as 0.1 + 0.005 must not turn an allowed change into a regression.
SLACK = 1e-12


@dataclass(frozen=True)
class Delta:
    """One metric of one item (or aggregate), before and after."""

    metric: str
    old: float
    new: float
    tolerance: Tolerance = EXACT

    @property
    def change(self) -> float:
        return self.new - self.old

    @property
    def worse_by(self) -> float:
        """How much worse the new value is (negative: better), in the metric's direction."""
        return METRICS[self.metric].worse_by(self.old, self.new)

    @property
    def regressed(self) -> bool:
        return self.worse_by > self.tolerance.allowed(self.old) + SLACK

    @property
    def verdict(self) -> str:
        """regressed (worse beyond the tolerance), worse (within it), better or same."""
        if self.regressed:
            return "regressed"
        if abs(self.worse_by) <= SLACK:
            return "same"
        return "better" if self.worse_by < 0 else "worse"

    def message(self) -> str:
        direction = METRICS[self.metric].better
        return (
            f"{self.metric}: {format_number(self.old)} -> {format_number(self.new)} "
            f"({'+' if self.change >= 0 else ''}{format_number(self.change)}; {direction} is better; "
            f"tolerance {self.tolerance}): {self.verdict.upper() if self.regressed else self.verdict}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "old": self.old,
            "new": self.new,
            "tolerance": str(self.tolerance),
            "verdict": self.verdict,
            "message": self.message(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Delta:
        return cls(data["metric"], data["old"], data["new"], Tolerance.parse(data["tolerance"]))


def tolerances_for(regression: Mapping[str, Tolerance], thresholded: Iterable[str]) -> dict[str, Tolerance]:
    """What an item compares with its baseline: every metric it has a threshold on (no
    worse at all) and every metric given a tolerance (``regression:``), which wins."""
    return {**{m: EXACT for m in thresholded}, **regression}


def deltas(
    old: Mapping[str, float | None], new: Mapping[str, float | None], tolerances: Mapping[str, Tolerance]
) -> list[Delta]:
    """Deltas of the metrics named in ``tolerances`` that both sides have a value for."""
    found = []
    for metric, tolerance in tolerances.items():
        before, after = old.get(metric), new.get(metric)
        if metric in METRICS and before is not None and after is not None:
            found.append(Delta(metric, before, after, tolerance))
    return found


@dataclass(frozen=True)
class LostFact:
    """A fact about the page that held in the baseline and no longer holds: a regression
    of its own, whatever the share of facts that hold did."""

    id: str
    type: str
    reason: str

    def message(self) -> str:
        return f"check {self.id} ({self.type}) held in the baseline and no longer holds: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LostFact:
        return cls(data["id"], data["type"], data["reason"])


@dataclass(frozen=True)
class ItemComparison:
    """An item against its baseline record: new (no record), or compared with deltas and
    the facts it lost."""

    status: str  # new | compared
    deltas: tuple[Delta, ...] = field(default=())
    lost_facts: tuple[LostFact, ...] = field(default=())

    @property
    def regressed(self) -> bool:
        return bool(self.lost_facts) or any(d.regressed for d in self.deltas)

    @property
    def worst(self) -> float:
        """How much worse the worst compared metric got beyond its tolerance (for sorting)."""
        return max((d.worse_by - d.tolerance.allowed(d.old) for d in self.deltas), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "deltas": [d.to_dict() for d in self.deltas],
            "lost_facts": [f.to_dict() for f in self.lost_facts],
            "regressed": self.regressed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ItemComparison:
        return cls(
            data["status"],
            tuple(Delta.from_dict(d) for d in data.get("deltas") or ()),
            tuple(LostFact.from_dict(f) for f in data.get("lost_facts") or ()),
        )


def lost_facts(old: Iterable[FactRecord] | None, new: Iterable[FactRecord] | None) -> tuple[LostFact, ...]:
    """The facts (by id) that held before and do not now."""
    held = {f.id for f in old or () if f.passed}
    return tuple(LostFact(f.id, f.type, f.reason) for f in new or () if not f.passed and f.id in held)


def compare_item(
    old: Mapping[str, float | None] | None,
    new: Mapping[str, float | None],
    tolerances: Mapping[str, Tolerance],
    old_facts: Iterable[FactRecord] | None = None,
    new_facts: Iterable[FactRecord] | None = None,
) -> ItemComparison:
    """An item's metrics and facts against its baseline record's (None: the baseline has no record)."""
    if old is None:
        return ItemComparison("new")
    return ItemComparison("compared", tuple(deltas(old, new, tolerances)), lost_facts(old_facts, new_facts))
