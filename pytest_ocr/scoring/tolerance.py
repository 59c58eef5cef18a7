"""Did a metric get worse than it was, by more than its tolerance?

Shared by the baseline comparison of a run (``--ocr-baseline``) and by ``pytest-ocr
compare``, so that both count the same items as regressed. A tolerance (cases/rules.py)
is absolute (``0.005``: the value may get worse by up to 0.005) or relative (``"10%"``:
by up to 10 % of the old value). "Worse" follows each metric's direction (the metric registry's
``worse_by``): up for CER, down for field F1.

An item's comparison covers the metrics it has a threshold on (no worsening at all)
and those given a tolerance under ``regression:`` (``null`` there: not compared); an item
is *regressed* when one of them got worse by more than its tolerance. That is the one
definition of "regressed".

An item recognised several times (repeats) in either run is one draw no longer: its
delta carries the ``Noise`` it was judged with (run/noise.py), and it regressed only
when the worsening beyond the tolerance holds at the run's confidence and exceeds the
spread its repeats showed. Until the run is complete (a shard's items, an item as it
ends) that is not decided, and the delta does not count as regressed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..cases.rules import EXACT, Tolerance, format_number
from ..codec import Coded, encode, text
from ..metrics import METRICS
from .facts import FactRecord

# A float sum such as 0.1 + 0.005 must not turn an allowed change into a regression.
SLACK = 1e-12

Direction = Literal["better", "worse", "same"]


def direction(worse_by: float) -> Direction:
    """The one rule of better, worse and same, for an item, an aggregate or an estimate:
    ``worse_by`` is the change in the metric's worse direction (``Metric.worse_by``)."""
    if abs(worse_by) <= SLACK:
        return "same"
    return "worse" if worse_by > 0 else "better"


@dataclass(frozen=True)
class Noise(Coded):
    """How the change of an item recognised several times was told from the noise of its
    repeats (run/noise.py): every repeat's value in each run compared as two samples, one
    test in the run's family of tests."""

    old_n: int  # recognitions in the baseline and in this run
    new_n: int
    spread: float  # the widest range (worst minus best repeat) of the metric in either run
    # One-sided permutation test that the mean got worse by more than the tolerance; 0 when
    # the change is certain (no repeat of the item, nor of any item of its engine, differed).
    p_value: float
    confidence: float
    adjusted: float | None = None  # Holm's adjusted p-value over the family; None: not yet judged
    family: int = 0  # tests in the family (items' metrics and engines' overall changes)

    @property
    def judged(self) -> bool:
        return self.adjusted is not None

    @property
    def shown(self) -> bool:
        """The worsening holds at the confidence, false alarms controlled over the run."""
        return self.adjusted is not None and self.adjusted <= 1 - self.confidence + SLACK

    def describe(self, worse_by: float) -> str:
        """How the noise entered the verdict, for a delta that got worse beyond its tolerance."""
        level = f"{format_number(round(self.confidence * 100, 6))}%"
        runs = f"{self.old_n} and {self.new_n} recognitions"
        if self.p_value == 0:
            return f"{runs}, every one alike in both runs: the change is certain"
        if worse_by <= self.spread + SLACK:
            return f"within the spread of its repeats ({runs}, best to worst {self.spread:.4g}): not a regression"
        if self.adjusted is None:
            return f"{runs}, p = {self.p_value:.3g}; judged when the run is complete"
        test = f"{runs}, p = {self.p_value:.3g}, {self.adjusted:.3g} over the run's {self.family} tests (Holm)"
        return f"{test}: shown at {level}" if self.shown else f"{test}: not shown at {level}"


@dataclass(frozen=True)
class Delta(Coded):
    """One metric of one item (or aggregate), before and after."""

    metric: str
    old: float
    new: float
    tolerance: Tolerance = field(default=EXACT, metadata=text(Tolerance.parse))  # as written: "0.005", "10%"
    noise: Noise | None = None  # an item with repeats: how its change was told from noise

    @property
    def change(self) -> float:
        return self.new - self.old

    @property
    def worse_by(self) -> float:
        """How much worse the new value is (negative: better), in the metric's direction."""
        return METRICS[self.metric].worse_by(self.old, self.new)

    @property
    def beyond(self) -> float:
        """How much worse than its tolerance allows (negative: within it)."""
        return self.worse_by - self.tolerance.allowed(self.old)

    @property
    def regressed(self) -> bool:
        if self.beyond <= SLACK:
            return False
        noise = self.noise
        return noise is None or (noise.shown and self.worse_by > noise.spread + SLACK)

    @property
    def verdict(self) -> Literal["regressed"] | Direction:
        """regressed (worse beyond the tolerance), worse (within it, or not told from noise), better or same."""
        if self.regressed:
            return "regressed"
        return direction(self.worse_by)

    def how(self) -> str:
        """How the noise of its repeats entered the verdict ("" for an item recognised once)."""
        return self.noise.describe(self.worse_by) if self.noise is not None and self.beyond > SLACK else ""

    def message(self) -> str:
        direction = METRICS[self.metric].better
        how = self.how()
        return (
            f"{self.metric}: {format_number(self.old)} -> {format_number(self.new)} "
            f"({'+' if self.change >= 0 else ''}{format_number(self.change)}; {direction} is better; "
            f"tolerance {self.tolerance}): {self.verdict.upper() if self.regressed else self.verdict}"
            + (f" ({how})" if how else "")
        )

    def to_dict(self) -> dict[str, Any]:
        # Not its fields alone: the verdict and its message for readers, between them, and the
        # noise (with how it entered the verdict) only for an item with repeats.
        data = {
            "metric": self.metric,
            "old": self.old,
            "new": self.new,
            "tolerance": str(self.tolerance),
            "verdict": self.verdict,
            "message": self.message(),
        }
        if self.noise is not None:
            data["noise"] = self.noise.to_dict()
            data["how"] = self.how()
        return data


def tolerances_for(regression: Mapping[str, Tolerance | None], thresholded: Iterable[str]) -> dict[str, Tolerance]:
    """What an item compares with its baseline: every metric it has a threshold on (no
    worse at all) and every metric given a tolerance (``regression:``), which wins; a
    metric whose tolerance is ``None`` (``regression: {cer: null}``) is not compared."""
    merged: dict[str, Tolerance | None] = {**{m: EXACT for m in thresholded}, **regression}
    return {m: t for m, t in merged.items() if t is not None}


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
class LostFact(Coded):
    """A fact about the page that held in the baseline and no longer holds: a regression
    of its own, whatever the share of facts that hold did."""

    id: str
    type: str
    reason: str

    def message(self) -> str:
        return f"check {self.id} ({self.type}) held in the baseline and no longer holds: {self.reason}"


@dataclass(frozen=True)
class ItemComparison(Coded):
    """An item against its baseline record: new (no record), or compared with deltas and
    the facts it lost."""

    status: Literal["new", "compared"]
    deltas: tuple[Delta, ...] = field(default=())
    lost_facts: tuple[LostFact, ...] = field(default=())

    @property
    def regressed(self) -> bool:
        return bool(self.lost_facts) or any(d.regressed for d in self.deltas)

    @property
    def worst(self) -> float:
        """How much worse the worst regressed metric got beyond its tolerance (for sorting)."""
        return max((d.beyond for d in self.deltas if d.regressed), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {**encode(self), "regressed": self.regressed}  # said for readers, not read back


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
