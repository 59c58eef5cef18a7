"""Run B against run A: the one comparison of two runs. A run compares itself with its
baseline (``--ocr-baseline``, ``pytest-ocr merge --baseline``), and ``pytest-ocr compare``
compares two reports (BASE, e.g. the main branch's run, and HEAD, this change's); both
build the same ``Comparison`` here, the run's held by its record (``RunRecord.comparison``).

Items are matched by their key (run/identity.py). An item is *regressed* exactly as in the
run (scoring/tolerance.py): a metric it compares (its thresholds, its ``regression:``
tolerances, recorded as ``tolerances``) got worse by more than its tolerance, or a fact (a
check) that held in the base run no longer holds; items recognised several times are
compared as samples, all of them over the two runs (run/noise.py), and so is each engine's
overall change of its items with repeats. Better, worse and same follow one rule
(``scoring.tolerance.direction``); regressed items are listed in one order (``worst_first``).

Per engine, the comparison says how many items were compared, new and regressed, how the
compared metrics moved (with paired statistics: run/paired.py), and whether the engine's
configuration changed; and over the run, how many items found their record at all: when
none did, gating against the baseline fails (the identities do not line up, so nothing was
checked); when fewer than ``min_match`` did, a warning names the share.

``pytest-ocr compare`` adds each run's own counts and aggregates per engine (macro and micro,
over the items both runs measured, with paired statistics, and over all of each run's
items), every item in both, outcome changes, new and removed items and engines, and the
``--fail-on`` rules (run/rules.py) it judges. Items only in HEAD (new) or only in BASE
(removed) are never failures: a rule compares what both runs measured; when no item is in
both, with rules given, that is a violation of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..cases.rules import Tolerance
from ..metrics import METRICS
from ..metrics.registry import FACTS
from ..scoring.tolerance import Delta, Direction, LostFact, direction
from . import noise
from .aggregate import HEADLINE_METRICS, Stability, metric_order
from .baseline import Baseline, Refusal
from .baseline_defaults import from_history
from .paired import Paired, paired_results
from .result import CaseResult, Outcome

if TYPE_CHECKING:
    pass

COUNTS = ("cases", "passed", "failed", "errors", "filtered", "skipped")


# -- the model ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricMove:
    """A compared metric's mean before and after, over the items compared on it, and the
    paired statistics of its macro and micro averages over those items (run/paired.py)."""

    metric: str
    n: int
    old: float
    new: float
    paired: tuple[Paired, ...] = ()

    @property
    def verdict(self) -> Direction:
        return direction(METRICS[self.metric].worse_by(self.old, self.new))


@dataclass
class MetricDelta:
    metric: str
    old: float | None
    new: float | None
    change: float | None  # new - old
    direction: Direction | None  # None when a side has no value

    @classmethod
    def of(cls, metric: str, old: float | None, new: float | None) -> MetricDelta:
        if old is None or new is None:
            return cls(metric, old, new, None, None)
        return cls(metric, old, new, new - old, direction(METRICS[metric].worse_by(old, new)))


@dataclass
class AggregateDelta(MetricDelta):
    """An engine's macro or micro average of a metric in both runs: over the items both
    measured it (``items``; 0: none, and old and new are over all items), so that the
    change is the items' own and not new or removed items'; and over all of each run's
    items (``all_*``, unpaired: what each run's summary shows)."""

    kind: str = "macro"  # macro | micro
    # over the items both runs measured: the change with its interval, p-value and the
    # smallest worsening the suite can tell from noise (run/paired.py); None for fewer than two
    paired: Paired | None = None
    items: int = 0
    all_old: float | None = None
    all_new: float | None = None
    all_old_n: int = 0
    all_new_n: int = 0

    @property
    def unpaired_differs(self) -> bool:
        """Whether the runs' own averages tell another story than the items in both."""
        return self.items == 0 or (self.all_old, self.all_new) != (self.old, self.new)


@dataclass
class EngineComparison:
    engine: str
    compared: int
    new: int
    regressed: list[CaseResult]  # worst first
    moves: list[MetricMove]
    config_changes: list[str]
    repeated: int = 0  # compared items with repeats in either run (judged over the run: run/noise.py)
    unstable: int = 0  # of those, items whose repeats differed in either run
    # pytest-ocr compare: each run's counts (COUNTS) and aggregates, the engine being in both
    # runs' summaries (else empty), and how alike each run's repeats were (None: no repeats)
    base: dict[str, int] = field(default_factory=dict)
    head: dict[str, int] = field(default_factory=dict)
    metrics: list[AggregateDelta] = field(default_factory=list)  # macro then micro of each metric
    base_stability: Stability | None = None
    head_stability: Stability | None = None

    @property
    def unchanged(self) -> bool:
        return self.base == self.head and all(d.direction in ("same", None) for d in self.metrics)


@dataclass
class CaseComparison:
    """An item in both runs (pytest-ocr compare)."""

    key: str
    engine: str | None
    file: str
    line: int
    old_outcome: Outcome
    new_outcome: Outcome
    deltas: list[MetricDelta]
    regressed: bool = False  # worse than a tolerance the item compares, or a fact lost (as in the run)
    worst: float = 0.0  # how far beyond its tolerance the worst compared metric got
    violated: bool = False  # a per-item rule failed on it
    lost_facts: list[LostFact] = field(default_factory=list)  # checks that held in BASE and not in HEAD
    unstable: bool = False  # its repeats gave differing outputs in either report
    # what the item compares (its tolerances), as the run judged it: with repeats, each
    # delta's test over the two runs and how the noise entered its verdict
    compared: list[Delta] = field(default_factory=list)


@dataclass
class OutcomeChange:
    key: str
    engine: str | None
    old: str
    new: str
    error: str | None  # the first line of HEAD's error, if any


@dataclass
class Decision:
    """An aggregate rule with a confidence on one engine: the paired statistics it was
    judged on at the rule's tolerance (report/paired_text.py words the verdict)."""

    rule: str
    engine: str
    paired: Paired
    violated: bool
    tolerance: Tolerance


@dataclass
class Violation:
    rule: str
    # with the values exactly as the reports hold them; None for a rule with a confidence,
    # whose views word its decision (report/paired_text.py)
    message: str | None
    key: str | None = None  # the item, for a per-item or errors rule
    engine: str | None = None
    # The comparison that broke a metric rule and what it is of (the item's key, or
    # "ENGINE (macro)"), so that views for people can round its numbers; the JSON's
    # message has them in full.
    subject: str | None = None
    delta: Delta | None = None
    decision: Decision | None = None


@dataclass
class Comparison:
    """Run B against run A: per engine, and how many items matched at all; with
    ``pytest-ocr compare`` (``rules`` not None), also every item in both, what came and
    went, and the rules judged."""

    path: str  # the base run's report
    verb: str | None  # the writing verb, if the run writes the baseline
    records: int  # records in the base run
    current: int  # items of this run that measured something
    matched: int  # of those, items that found their record
    min_match: float
    engines: list[EngineComparison]
    old: dict[str, CaseResult] = field(default_factory=dict, repr=False)  # the base run's records, by key
    families: list[noise.Family] = field(default_factory=list)  # the tests of items with repeats, per confidence
    said: list[str] = field(default_factory=list)  # the warnings (warnings())
    # metrics (and facts) both runs have that their scorers scored differently: not compared
    refused: list[Refusal] = field(default_factory=list)
    # pytest-ocr compare
    rules: list[str] | None = None
    new_engines: list[str] = field(default_factory=list)
    removed_engines: list[str] = field(default_factory=list)
    cases: list[CaseComparison] = field(default_factory=list)  # every item in both, by key
    new_items: list[str] = field(default_factory=list)
    removed_items: list[str] = field(default_factory=list)
    outcome_changes: list[OutcomeChange] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)  # each aggregate rule per engine
    notes: list[str] = field(default_factory=list)  # e.g. a rule that found nothing to compare

    @property
    def regressed(self) -> list[CaseResult]:
        """Every engine's regressed items, the one that got worse by most first."""
        return regressed_first([r for e in self.engines for r in e.regressed])

    @property
    def name(self) -> str:
        """The baseline as short views name it: a file by its name, a run from history whole."""
        return self.path if from_history(self.path) else Path(self.path).name

    @property
    def share(self) -> float | None:
        return self.matched / self.current if self.current else None

    def warnings(self) -> list[str]:
        return list(self.said)

    @property
    def summarised(self) -> list[EngineComparison]:
        """The engines both runs' summaries have (pytest-ocr compare's per-engine sections)."""
        return [e for e in self.engines if e.base]

    @property
    def reconfigured(self) -> list[EngineComparison]:
        """The engines whose configuration changed (``config_changes``)."""
        return [e for e in self.engines if e.config_changes]

    @property
    def failed(self) -> bool:
        return bool(self.violations)

    def regressed_cases(self) -> list[CaseComparison]:
        """Items that regressed or broke a rule: the one that got worse by most first."""
        return sorted((c for c in self.cases if c.regressed or c.violated), key=lambda c: worst_first(c.worst, c.key))


def compared_metrics(results: Sequence[CaseResult]) -> set[str]:
    """What a run's measured items compare with their records: the metrics they have a
    threshold or a tolerance on, and the facts when they have checks."""
    measured = [r for r in results if r.measured]
    return {m for r in measured for m in r.tolerances} | ({FACTS} if any(r.facts for r in measured) else set())


def worst_first(worst: float, key: str) -> tuple[float, str]:
    """The one order of regressed items: the one that got worse by most (beyond its
    tolerance) first, then by key."""
    return (-worst, key)


def regressed_first(results: Sequence[CaseResult]) -> list[CaseResult]:
    """Regressed items, worst first."""
    found = [r for r in results if r.regressed]
    return sorted(found, key=lambda r: worst_first(r.baseline.worst if r.baseline else 0.0, r.key))


# -- a run against its baseline ------------------------------------------------------------


def against(
    baseline: Baseline, results: Sequence[CaseResult], verb: str | None, min_match: float, complete: bool = True
) -> tuple[list[CaseResult], Comparison]:
    """The run against its baseline: the results with every item that has repeats decided
    over the whole run (a shard's wait for the merge: ``complete=False``), failed when it
    regressed (unless the run accepts its results: ``update``), and their comparison."""
    decided, comparison, _ = against_judged(baseline, results, verb, min_match, complete)
    return decided, comparison


def against_judged(
    baseline: Baseline, results: Sequence[CaseResult], verb: str | None, min_match: float, complete: bool = True
) -> tuple[list[CaseResult], Comparison, noise.Judged]:
    """``against``, with the judgement of the items with repeats (``compare`` words its deltas)."""
    judged = noise.judge(results, baseline.results) if complete else noise.Judged()
    decided = [_decided(r, judged.deltas[r.key], verb != "update") if r.key in judged.deltas else r for r in results]
    return decided, view(baseline, decided, verb, min_match, judged.families), judged


def _decided(result: CaseResult, deltas: tuple[Delta, ...], regressions_fail: bool) -> CaseResult:
    assert result.baseline is not None
    comparison = replace(result.baseline, deltas=deltas)
    failed = result.outcome == "failed" or (regressions_fail and comparison.regressed)
    return replace(result, baseline=comparison, outcome="failed" if failed else result.outcome)


def view(
    baseline: Baseline,
    results: Sequence[CaseResult],
    verb: str | None,
    min_match: float,
    families: Sequence[noise.Family] = (),
) -> Comparison:
    """The comparison of results, each already compared with its record as the run's items
    are (``CaseResult.baseline``), with the baseline they were compared with."""
    measured = [r for r in results if r.measured and r.engine is not None]
    refused = _refused(baseline, measured)
    engines = []
    for engine in sorted({r.engine for r in measured if r.engine is not None}):
        mine = [r for r in measured if r.engine == engine and r.baseline is not None]
        compared = [r for r in mine if r.baseline is not None and r.baseline.status == "compared"]
        # the metrics items compare (thresholds, tolerances), and the headline ones always
        by_metric: dict[str, list[tuple[CaseResult, CaseResult]]] = {}
        for r in compared:
            old = baseline.results[r.key]
            names = [*(d.metric for d in (r.baseline.deltas if r.baseline else ())), *HEADLINE_METRICS]
            for m in dict.fromkeys(names):
                if m not in refused and r.metrics.get(m) is not None and old.metrics.get(m) is not None:
                    by_metric.setdefault(m, []).append((old, r))
        moves = [_move(m, by_metric[m]) for m in sorted(by_metric, key=metric_order)]
        fingerprint = next((r.fingerprint for r in mine if r.fingerprint), None)
        repeated = [r for r in compared if compared_as_samples(r)]
        engines.append(
            EngineComparison(
                engine,
                len(compared),
                len(mine) - len(compared),
                regressed_first(compared),
                moves,
                baseline.changed_engine(engine, fingerprint),
                len(repeated),
                sum(noise.unstable(r.repeats) or noise.unstable(baseline.results[r.key].repeats) for r in repeated),
            )
        )
    found = Comparison(
        baseline.name,
        verb,
        len(baseline.results),
        len(measured),
        sum(e.compared for e in engines),
        min_match,
        engines,
        baseline.results,
        list(families),
        refused=list(refused.values()),
    )
    checked = compared_metrics(results) if verb != "update" else set()  # those fail the run's check
    found.said = _match_warnings(found) + [r.text() for r in found.refused if r.metric not in checked]
    return found


def _refused(baseline: Baseline, measured: Sequence[CaseResult]) -> dict[str, Refusal]:
    """The metrics (and facts) that items of both runs have and that the runs scored differently."""
    names: set[str] = set()
    for r in measured:
        old = baseline.results.get(r.key)
        if old is not None and old.measured:
            names |= r.metrics.keys() & old.metrics.keys()
            names |= {FACTS} if r.facts is not None and old.facts is not None else set()
    found = {name: baseline.refused(name) for name in sorted(names)}
    return {name: refusal for name, refusal in found.items() if refusal is not None}


def _match_warnings(c: Comparison) -> list[str]:
    share = c.share
    if share is None or not c.records or share >= c.min_match or (c.verb is None and not c.matched):
        return []  # (when nothing matched, the failing check says so)
    return [
        f"only {c.matched} of {c.current} items ({share:.0%}) found their record in the baseline "
        f"{c.path} (which has {c.records}); the rest are new. Check that the baseline comes from "
        f"this suite (item keys are case file paths relative to the project directory)"
    ]


def compared_as_samples(result: CaseResult) -> bool:
    """Whether the item was compared as samples (repeats in either run)."""
    return result.baseline is not None and any(d.noise is not None for d in result.baseline.deltas)


def _move(metric: str, pairs: list[tuple[CaseResult, CaseResult]]) -> MetricMove:
    stats = paired_results(metric, pairs)
    return MetricMove(
        metric,
        len(pairs),
        math.fsum(o.metrics[metric] for o, _ in pairs) / len(pairs),  # type: ignore[misc]
        math.fsum(n.metrics[metric] for _, n in pairs) / len(pairs),  # type: ignore[misc]
        tuple(stats[kind] for kind in ("macro", "micro") if kind in stats),
    )
