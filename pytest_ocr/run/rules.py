"""``pytest-ocr compare``: two runs' records compared (run/comparison.py's one ``Comparison``,
built as a run is compared with its baseline) and its ``--fail-on`` rules judged on it.

- ``METRIC:TOLERANCE``: any item whose METRIC got worse by more than TOLERANCE
  (``cer:+0.005`` absolute, ``cer:+10%`` relative to the old value); items with repeats
  in either report are judged as the run judges them against its baseline (run/noise.py:
  samples, the rule's own family of tests under Holm's method, at the rule's confidence or
  95 %), and so is each engine's overall change of METRIC over them;
- ``METRIC.macro:TOLERANCE`` / ``METRIC.micro:TOLERANCE``: an engine's aggregate got
  worse by more than TOLERANCE, optionally with a confidence (``cer.macro:+0.002@95%``);
- ``errors``: an item that was measured in BASE (passed or failed) is an error in HEAD.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..cases.rules import Tolerance, ToleranceError
from ..errors import OcrError, did_you_mean
from ..metrics import METRICS
from ..metrics.registry import FACTS
from ..scoring.tolerance import Delta, lost_facts
from . import noise
from .aggregate import aggregate_metric
from .baseline import Baseline
from .baseline_defaults import DEFAULT_MIN_MATCH, from_history
from .comparison import (
    COUNTS,
    AggregateDelta,
    CaseComparison,
    Comparison,
    Decision,
    EngineComparison,
    MetricDelta,
    OutcomeChange,
    Violation,
    against_judged,
    compared_metrics,
)
from .paired import measured_pairs, paired_results
from .result import CaseResult, first_line

if TYPE_CHECKING:
    from .aggregate import Summary
    from .record import RunRecord

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
    "(optionally with a confidence: cer.macro:+0.002@95%, cer:+0.01@95%) or errors"
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
        parsed = Tolerance.parse(tolerance.strip())
    except ToleranceError as exc:
        raise RuleError(f"bad rule {text!r}: {exc}") from None
    return Rule(kind if dot else "case", metric, parsed)


def parse_rules(texts: Sequence[str]) -> list[Rule]:
    return [parse_rule(t) for t in texts]


# -- two reports (pytest-ocr compare) --------------------------------------------------------


def compare(
    base: RunRecord,
    head: RunRecord,
    rules: Sequence[Rule] = (),
    min_match: float = DEFAULT_MIN_MATCH,
    path: str = "BASE",
) -> Comparison:
    """What changed from ``base`` (read from ``path``) to ``head``, and which rules broke:
    HEAD's items compared with BASE's records as the run compares them with its baseline.
    A metric the two scored with different scorers is compared nowhere; a rule on it, or
    (with rules) an item's threshold or tolerance on it, is a violation that says why."""
    file = None if from_history(path) else Path(path)
    scored = Baseline(file, {}, {}, True, path, scorers=base.scorers, here=head.scorers)
    found = [scored.refused(name) for name in sorted(base.scorers.keys() & head.scorers.keys())]
    refused = [refusal for refusal in found if refusal is not None]
    compared_before = compared_metrics(head.results)
    if refused:
        names = {r.metric for r in refused}
        base, head = _without(base, names), _without(head, names)
    stored = Baseline(file, {r.key: r for r in base.results}, dict(base.engines), True, path)
    items = [
        replace(r, baseline=stored.compare(r.key, r.metrics, noise.tolerances_of(r), r.facts, r.repeats))
        if r.measured
        else r
        for r in head.results
    ]
    _, comparison, judged = against_judged(stored, items, None, min_match)
    comparison.rules = [str(r) for r in rules]
    compared = {str(r): 0 for r in rules}  # how many values each rule looked at

    # engines: aggregates, aggregate rules, fingerprints
    old_summary, new_summary = base.summaries, head.summaries
    comparison.new_engines = sorted(new_summary.keys() - old_summary.keys())
    comparison.removed_engines = sorted(old_summary.keys() - new_summary.keys())
    old_results = stored.results
    pairs: dict[str, list[tuple[CaseResult, CaseResult]]] = {}
    for record, r in measured_pairs(head.results, old_results):
        if r.engine is not None:
            pairs.setdefault(r.engine, []).append((record, r))
    engines = {e.engine: e for e in comparison.engines}
    for engine in sorted(old_summary.keys() & new_summary.keys()):
        mine = pairs.get(engine, [])
        e = engines.setdefault(engine, EngineComparison(engine, 0, 0, [], [], []))
        _aggregates(e, old_summary[engine], new_summary[engine], mine)
        for rule in rules:
            if rule.scope not in KINDS or rule.metric is None or rule.tolerance is None:
                continue
            if rule.tolerance.confidence is not None:  # judged on the items both runs measured
                _decide(comparison, compared, rule, e, mine)
                continue
            row = next((d for d in e.metrics if (d.metric, d.kind) == (rule.metric, rule.scope)), None)
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
        e = engines.setdefault(engine, EngineComparison(engine, 0, 0, [], [], []))
        fingerprint = {k: v for k, v in head.engines[engine].items() if k != "fingerprint_id"}
        e.config_changes = stored.changed_engine(engine, fingerprint)
    comparison.engines = sorted(engines.values(), key=lambda e: e.engine)

    # items
    new_results = {r.key: r for r in head.results}
    comparison.new_items = sorted(new_results.keys() - old_results.keys())
    comparison.removed_items = sorted(old_results.keys() - new_results.keys())
    named = list(dict.fromkeys(r.metric for r in rules if r.metric))
    case_rules = [r for r in rules if r.scope == "case"]
    # A per-item rule is a baseline comparison with the rule's tolerance: items with repeats
    # are told from their noise as the run tells them, over the rule's own family of tests.
    sampled = {str(rule): _judge_case_rule(rule, head.results, old_results) for rule in case_rules}
    error_rules = [r for r in rules if r.scope == "errors"]
    for key in sorted(old_results.keys() & new_results.keys()):
        old, new = old_results[key], new_results[key]
        case = _case(old, new, named, judged.deltas.get(key))
        for rule in case_rules:
            before = old.metrics.get(rule.metric or "")
            after = new.metrics.get(rule.metric or "")
            if before is None or after is None or rule.metric is None or rule.tolerance is None:
                continue
            compared[str(rule)] += 1
            told = [d for d in sampled[str(rule)].deltas.get(key, ()) if d.metric == rule.metric]
            delta = told[0] if told else Delta(rule.metric, before, after, rule.tolerance)
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
    for rule in case_rules:
        _sampled_verdicts(comparison, rule, sampled[str(rule)])

    both, in_head = len(comparison.cases), len(new_results)
    comparison.said = []
    if old_results and in_head and not both:
        comparison.said.append(
            f"no item of HEAD ({in_head} items) is in BASE ({len(old_results)} items): "
            f"the reports come from different suites, or item keys changed"
        )
        if rules:
            comparison.violations.append(
                Violation("items in both", "no item is in both reports, so no rule compared anything")
            )
    elif old_results and in_head and both / in_head < min_match:
        comparison.said.append(
            f"only {both} of HEAD's {in_head} items ({both / in_head:.0%}) are in BASE; "
            f"the rest are new and not compared"
        )
    comparison.refused = refused
    for refusal in refused:
        named_by = [str(r) for r in rules if r.metric == refusal.metric]
        if named_by or (rules and refusal.metric in compared_before):
            comparison.violations.append(Violation(named_by[0] if named_by else "scorers", refusal.text()))
            compared.update((name, compared[name] + 1) for name in named_by)  # decided: it cannot be compared
        else:
            comparison.said.append(refusal.text())
    for rule_name, count in compared.items():
        if count == 0:
            comparison.notes.append(
                f"rule {rule_name} compared nothing: no item or engine has its values in both reports"
            )
    return comparison


def _without(record: RunRecord, names: set[str]) -> RunRecord:
    """The run as if it had not measured ``names`` (metrics, or ``facts``): what is not compared."""

    def summary(s: Summary) -> Summary:
        kept = {m: a for m, a in s.metrics.items() if m not in names}
        return replace(s, metrics=kept, groups={g: summary(sub) for g, sub in s.groups.items()})

    def result(r: CaseResult) -> CaseResult:
        return replace(
            r,
            metrics={m: v for m, v in r.metrics.items() if m not in names},
            details={m: d for m, d in r.details.items() if m not in names},
            tolerances={m: t for m, t in r.tolerances.items() if m not in names},
            facts=None if FACTS in names else r.facts,
        )

    return replace(
        record,
        results=[result(r) for r in record.results],
        summaries={e: summary(s) for e, s in record.summaries.items()},
    )


def _judge_case_rule(rule: Rule, results: Sequence[CaseResult], old: dict[str, CaseResult]) -> noise.Judged:
    """The items with repeats in either report, compared on the rule's metric with its
    tolerance (and nothing else), decided over the rule's family (run/noise.py's judge)."""
    tolerance = {str(rule.metric): str(rule.tolerance)}
    sampled = [r for r in results if r.key in old and (noise.repeated(r.repeats) or noise.repeated(old[r.key].repeats))]
    return noise.judge([replace(r, tolerances=tolerance) for r in sampled], old)


def _sampled_verdicts(comparison: Comparison, rule: Rule, judged: noise.Judged) -> None:
    """What a per-item rule's samples add: each engine's overall change that broke it, and
    what its tests cannot show."""
    for overall in judged.overall:
        if overall.regressed:
            comparison.violations.append(
                Violation(str(rule), overall.message(), engine=overall.engine, subject=overall.engine)
            )
    said = {f.note() for f in comparison.families}  # the comparison's own, said already
    comparison.notes.extend(f"rule {rule}: {note}" for f in judged.families if (note := f.note()) not in said)
    if rule.tolerance is not None and rule.tolerance.confidence is not None and not judged.deltas:
        comparison.notes.append(
            f"rule {rule}: no item has repeats in either report, so its confidence played no part: "
            "each item's change is one recognition's, compared as it is"
        )


def _counts(summary: Summary) -> dict[str, int]:
    return {name: getattr(summary, name, 0) for name in COUNTS}


def _aggregates(
    e: EngineComparison, old: Summary, new: Summary, pairs: Sequence[tuple[CaseResult, CaseResult]]
) -> None:
    """Each run's counts and aggregates of the engine, over the items both measured (the
    items its moves are over too: their statistics are not computed twice)."""
    moved = {m.metric: {p.kind: p for p in m.paired} for m in e.moves}
    for metric in METRICS:  # metrics unknown to this version have no known direction
        if metric in old.metrics and metric in new.metrics:
            stats = moved[metric] if metric in moved else paired_results(metric, pairs)
            both = [(o, n) for o, n in pairs if o.metrics.get(metric) is not None and n.metrics.get(metric) is not None]
            before = aggregate_metric([o for o, _ in both], metric)
            after = aggregate_metric([n for _, n in both], metric)
            for kind in KINDS:
                all_old, all_new = getattr(old.metrics[metric], kind), getattr(new.metrics[metric], kind)
                o, n = (getattr(before, kind), getattr(after, kind)) if both else (all_old, all_new)
                e.metrics.append(
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
    e.base, e.head = _counts(old), _counts(new)
    e.base_stability, e.head_stability = old.stability, new.stability


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


def _decide(
    comparison: Comparison,
    compared: dict[str, int],
    rule: Rule,
    engine_comparison: EngineComparison,
    pairs: Sequence[tuple[CaseResult, CaseResult]],
) -> None:
    """An aggregate rule with a confidence on one engine: the paired statistics at that
    confidence, the one predicate (Paired.regressed), and its decision recorded."""
    engine = engine_comparison.engine
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
    decision = Decision(str(rule), engine, stats, violated, rule.tolerance)
    comparison.decisions.append(decision)
    if violated:
        comparison.violations.append(Violation(str(rule), None, engine=engine, decision=decision))
