"""Two runs side by side: what changed from BASE (e.g. the main branch's run) to HEAD
(this change's run), and which ``--fail-on`` rules that breaks.

Every aggregate of every engine also gets its paired statistics over the items both
runs measured: the change, its bootstrap interval, a permutation p-value and the
smallest worsening the suite can tell from noise. Items are matched by their key
(run/identity.py). Items only in HEAD (new) or only in
BASE (removed) are listed, never failures: a rule compares what both runs measured.
An item is *regressed* exactly as in the run that made HEAD: a metric it compares
(its thresholds, its ``regression:`` tolerances, recorded in HEAD as ``tolerances``)
got worse by more than its tolerance, or a fact (a check) that held in BASE no longer
holds (scoring/tolerance.py); an item with repeats in either report is judged over the
two runs as the run judged it (run/noise.py), and so is each engine's overall change of
its items with repeats. Each engine's stability under repeats, in both reports, and
each item whose repeats differed are shown. When no item is in both
reports, a rule compared nothing: with rules given, that is a violation of its own.

Rules (``--fail-on``):

- ``METRIC:TOLERANCE``: any item whose METRIC got worse by more than TOLERANCE
  (``cer:+0.005`` absolute, ``cer:+10%`` relative to the old value);
- ``METRIC.macro:TOLERANCE`` / ``METRIC.micro:TOLERANCE``: an engine's aggregate got
  worse by more than TOLERANCE; with a confidence (``cer.macro:+0.002@95%``), judged on
  the items both runs measured: only when the interval of the worsening at that
  confidence lies entirely above TOLERANCE (run/paired.py), each decision recorded;
- ``errors``: an item that was measured in BASE (passed or failed) is an error in HEAD.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..cases.rules import Tolerance, ToleranceError, item_tolerance
from ..engines import fingerprint_changes
from ..errors import OcrError, did_you_mean
from ..metrics import METRICS
from ..scoring.tolerance import Delta, Direction, LostFact, direction, lost_facts
from ..storable import json_safe
from . import noise
from .aggregate import Stability, aggregate_metric
from .baseline_defaults import DEFAULT_MIN_MATCH
from .paired import Paired, measured_pairs, paired_results
from .record import RunRecord
from .result import CaseResult, first_line

KINDS = ("macro", "micro")
COUNTS = ("cases", "passed", "failed", "errors", "filtered", "skipped")


class RuleError(OcrError, ValueError):
    """A ``--fail-on`` rule that cannot be parsed."""


# -- rules --------------------------------------------------------------------------------


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


# -- the comparison -------------------------------------------------------------------------


def _direction(metric: str, old: float | None, new: float | None) -> Direction | None:
    """better / worse / same in the metric's direction; None when a side has no value."""
    if old is None or new is None:
        return None
    return direction(METRICS[metric].worse_by(old, new))


@dataclass
class MetricDelta:
    metric: str
    old: float | None
    new: float | None
    change: float | None  # new - old
    direction: str | None  # better | worse | same; None when a side has no value

    @classmethod
    def of(cls, metric: str, old: float | None, new: float | None) -> MetricDelta:
        change = None if old is None or new is None else new - old
        return cls(metric, old, new, change, _direction(metric, old, new))


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
    base: dict[str, int]  # COUNTS
    head: dict[str, int]
    metrics: list[AggregateDelta]  # macro then micro of each metric both summaries have
    # with repeats: how alike each run's repeats were (run/aggregate.py); None: no repeats
    base_stability: Stability | None = None
    head_stability: Stability | None = None

    @property
    def unchanged(self) -> bool:
        return self.base == self.head and all(d.direction in ("same", None) for d in self.metrics)


@dataclass
class CaseComparison:
    key: str
    engine: str | None
    file: str
    line: int
    old_outcome: str
    new_outcome: str
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
class FingerprintChange:
    engine: str
    changes: list[str]


@dataclass
class Violation:
    rule: str
    message: str  # with the values exactly as the reports hold them
    key: str | None = None  # the item, for a per-item or errors rule
    engine: str | None = None
    # The comparison that broke a metric rule and what it is of (the item's key, or
    # "ENGINE (macro)"), so that views for people can round its numbers; not in to_dict,
    # whose message has them in full.
    subject: str | None = None
    delta: Delta | None = None


@dataclass
class Decision:
    """An aggregate rule on one engine: the paired statistics it was judged on and its verdict."""

    rule: str
    engine: str
    paired: Paired
    violated: bool
    verdict: str


@dataclass
class Comparison:
    rules: list[str]
    engines: list[EngineComparison] = field(default_factory=list)
    new_engines: list[str] = field(default_factory=list)
    removed_engines: list[str] = field(default_factory=list)
    cases: list[CaseComparison] = field(default_factory=list)  # every item in both, by key
    new_items: list[str] = field(default_factory=list)
    removed_items: list[str] = field(default_factory=list)
    outcome_changes: list[OutcomeChange] = field(default_factory=list)
    fingerprints: list[FingerprintChange] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)  # each aggregate rule per engine
    families: list[noise.Family] = field(default_factory=list)  # items with repeats, judged over the runs
    notes: list[str] = field(default_factory=list)  # e.g. a rule that found nothing to compare
    warnings: list[str] = field(default_factory=list)  # e.g. few items in both

    @property
    def failed(self) -> bool:
        return bool(self.violations)

    def regressed_cases(self) -> list[CaseComparison]:
        """Items that regressed or broke a rule: the one that got worse by most first."""
        found = [c for c in self.cases if c.regressed or c.violated]
        return sorted(found, key=lambda c: (-c.worst, c.key))

    def to_dict(self) -> dict[str, Any]:
        document = asdict(self)
        for violation in document["violations"]:
            del violation["subject"], violation["delta"]
        for row, case in zip(document["cases"], self.cases, strict=True):
            row["compared"] = [d.to_dict() for d in case.compared]
        document["families"] = [f.to_dict() for f in self.families]
        for engine, comparison in zip(document["engines"], self.engines, strict=True):
            for row, delta in zip(engine["metrics"], comparison.metrics, strict=True):
                row["paired"] = delta.paired.to_dict() if delta.paired else None
        for row, decision in zip(document["decisions"], self.decisions, strict=True):
            row["paired"] = decision.paired.to_dict()
        document["failed"] = self.failed
        return json_safe(document)


def _counts(summary: Any) -> dict[str, int]:
    return {name: getattr(summary, name, 0) for name in COUNTS}


def _engine_comparison(
    engine: str, old: Any, new: Any, pairs: Sequence[tuple[CaseResult, CaseResult]]
) -> EngineComparison:
    rows = []
    for metric in METRICS:  # metrics unknown to this version have no known direction
        if metric in old.metrics and metric in new.metrics:
            stats = paired_results(metric, pairs)
            both = [(o, n) for o, n in pairs if o.metrics.get(metric) is not None and n.metrics.get(metric) is not None]
            before = aggregate_metric([o for o, _ in both], metric)
            after = aggregate_metric([n for _, n in both], metric)
            for kind in KINDS:
                all_old, all_new = getattr(old.metrics[metric], kind), getattr(new.metrics[metric], kind)
                o, n = (getattr(before, kind), getattr(after, kind)) if both else (all_old, all_new)
                rows.append(
                    AggregateDelta(
                        **asdict(MetricDelta.of(metric, o, n)),
                        kind=kind,
                        paired=stats.get(kind),
                        items=len(both),
                        all_old=all_old,
                        all_new=all_new,
                        all_old_n=old.metrics[metric].n,
                        all_new_n=new.metrics[metric].n,
                    )
                )
    return EngineComparison(engine, _counts(old), _counts(new), rows, old.stability, new.stability)


def _case(old: CaseResult, new: CaseResult, named: list[str], judged: tuple[Delta, ...] | None) -> CaseComparison:
    """One item in both reports; ``judged``: its deltas as the runs' family of tests
    decided them, when it has repeats."""
    names = named or [m for m in METRICS if old.metrics.get(m) is not None and new.metrics.get(m) is not None]
    if judged is not None:
        found = list(judged)
    elif old.measured:
        found = [
            Delta(m, before, after, t)
            for m, t in noise.tolerances_of(new).items()
            if (before := old.metrics.get(m)) is not None and (after := new.metrics.get(m)) is not None
        ]
    else:
        found = []
    regressed = [d for d in found if d.regressed]
    lost = list(lost_facts(old.facts, new.facts)) if old.measured else []
    return CaseComparison(
        new.key,
        new.engine,
        new.file,
        new.line,
        old.outcome,
        new.outcome,
        [
            MetricDelta.of(m, old.metrics[m], new.metrics[m])
            for m in names
            if old.metrics.get(m) is not None and new.metrics.get(m) is not None
        ],
        regressed=bool(regressed or lost),
        worst=max((d.beyond for d in regressed), default=0.0),
        lost_facts=lost,
        unstable=noise.unstable(old.repeats) or noise.unstable(new.repeats),
        compared=found,
    )


def compare(
    base: RunRecord, head: RunRecord, rules: Sequence[Rule] = (), min_match: float = DEFAULT_MIN_MATCH
) -> Comparison:
    """What changed from ``base`` to ``head`` and which rules broke."""
    comparison = Comparison(rules=[str(r) for r in rules])
    compared = {str(r): 0 for r in rules}  # how many values each rule looked at

    # engines: aggregates, aggregate rules, fingerprints
    old_summary, new_summary = base.summaries, head.summaries
    comparison.new_engines = sorted(new_summary.keys() - old_summary.keys())
    comparison.removed_engines = sorted(old_summary.keys() - new_summary.keys())
    old_results = {r.key: r for r in base.results}
    pairs: dict[str, list[tuple[CaseResult, CaseResult]]] = {}
    for stored, r in measured_pairs(head.results, old_results):
        if r.engine is not None:
            pairs.setdefault(r.engine, []).append((stored, r))
    for engine in sorted(old_summary.keys() & new_summary.keys()):
        mine = pairs.get(engine, [])
        engine_comparison = _engine_comparison(engine, old_summary[engine], new_summary[engine], mine)
        comparison.engines.append(engine_comparison)
        for rule in rules:
            if rule.scope not in KINDS or rule.metric is None or rule.tolerance is None:
                continue
            if rule.tolerance.confidence is not None:  # judged on the items both runs measured
                _decide(comparison, compared, rule, engine, engine_comparison, mine)
                continue
            row = next((d for d in engine_comparison.metrics if (d.metric, d.kind) == (rule.metric, rule.scope)), None)
            if row is None or not row.items or row.old is None or row.new is None:
                continue  # judged on the items both runs measured, as the run's gates against a baseline are
            compared[str(rule)] += 1
            delta = Delta(rule.metric, row.old, row.new, rule.tolerance)
            if delta.regressed:
                subject = f"{engine} ({rule.scope})"
                comparison.violations.append(
                    Violation(str(rule), f"{subject}: {delta.message()}", engine=engine, subject=subject, delta=delta)
                )
    for engine in sorted(base.engines.keys() & head.engines.keys()):
        changes = fingerprint_changes(base.engines[engine], head.engines[engine])
        if changes:
            comparison.fingerprints.append(FingerprintChange(engine, changes))

    # items
    new_results = {r.key: r for r in head.results}
    comparison.new_items = sorted(new_results.keys() - old_results.keys())
    comparison.removed_items = sorted(old_results.keys() - new_results.keys())
    named = list(dict.fromkeys(r.metric for r in rules if r.metric))
    case_rules = [r for r in rules if r.scope == "case"]
    error_rules = [r for r in rules if r.scope == "errors"]
    judged = noise.judge(head.results, old_results)
    comparison.families = judged.families
    for key in sorted(old_results.keys() & new_results.keys()):
        old, new = old_results[key], new_results[key]
        case = _case(old, new, named, judged.deltas.get(key))
        for rule in case_rules:
            before = old.metrics.get(rule.metric or "")
            after = new.metrics.get(rule.metric or "")
            if before is None or after is None or rule.metric is None or rule.tolerance is None:
                continue
            compared[str(rule)] += 1
            delta = Delta(rule.metric, before, after, rule.tolerance)
            if delta.regressed:
                case.violated = True
                case.worst = max(case.worst, delta.beyond)
                comparison.violations.append(
                    Violation(str(rule), f"{key}: {delta.message()}", key, case.engine, subject=key, delta=delta)
                )
        if old.outcome != new.outcome:
            comparison.outcome_changes.append(
                OutcomeChange(key, case.engine, old.outcome, new.outcome, first_line(new.error) or None)
            )
        for rule in error_rules:
            if old.measured:
                compared[str(rule)] += 1
                if new.outcome == "error":
                    reason = first_line(new.error) or "no message"
                    comparison.violations.append(
                        Violation(str(rule), f"{key}: {old.outcome} -> error: {reason}", key, case.engine)
                    )
        comparison.cases.append(case)

    both, in_head = len(comparison.cases), len(new_results)
    if old_results and in_head and not both:
        comparison.warnings.append(
            f"no item of HEAD ({in_head} items) is in BASE ({len(old_results)} items): "
            f"the reports come from different suites, or item keys changed"
        )
        if rules:
            comparison.violations.append(
                Violation("items in both", "no item is in both reports, so no rule compared anything")
            )
    elif old_results and in_head and both / in_head < min_match:
        comparison.warnings.append(
            f"only {both} of HEAD's {in_head} items ({both / in_head:.0%}) are in BASE; "
            f"the rest are new and not compared"
        )
    for rule_name, count in compared.items():
        if count == 0:
            comparison.notes.append(
                f"rule {rule_name} compared nothing: no item or engine has its values in both reports"
            )
    return comparison


def _decide(
    comparison: Comparison,
    compared: dict[str, int],
    rule: Rule,
    engine: str,
    engine_comparison: EngineComparison,
    pairs: Sequence[tuple[CaseResult, CaseResult]],
) -> None:
    """An aggregate rule with a confidence on one engine: the paired statistics at that
    confidence, the one predicate (Paired.regressed), and its decision recorded."""
    assert rule.metric is not None and rule.tolerance is not None and rule.tolerance.confidence is not None
    stats = next(
        (d.paired for d in engine_comparison.metrics if d.metric == rule.metric and d.kind == rule.scope), None
    )
    if stats is not None and stats.confidence != rule.tolerance.confidence:
        stats = paired_results(rule.metric, pairs, rule.tolerance.confidence).get(rule.scope)
    if stats is None:
        return  # fewer than two items with the metric in both: a note says the rule compared nothing
    compared[str(rule)] += 1
    violated = stats.regressed(rule.tolerance)
    verdict = stats.verdict(rule.tolerance)
    comparison.decisions.append(Decision(str(rule), engine, stats, violated, verdict))
    if violated:
        subject = f"{engine} ({rule.scope})"
        comparison.violations.append(
            Violation(
                str(rule),
                f"{subject}: {rule.metric}: {stats.describe()}, tolerance +{rule.tolerance}: {verdict}",
                engine=engine,
            )
        )
