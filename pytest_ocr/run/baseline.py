"""A stored run to compare against (``--ocr-baseline PATH``), and what the comparison
found over the whole run.

A baseline is a JSON report of an earlier run (``--ocr-report``), e.g. the main
branch's CI artifact. Each item is compared with the record of the same key there
(scoring/tolerance.py decides "regressed"). Over the run, the comparison says per
engine how many items were compared, new and regressed, how the compared metrics
moved, and whether the engine's configuration changed; and it says how many items
found their record at all: when none did, gating against the baseline fails (the
identities do not line up, so nothing was checked); when fewer than ``min_match``
did, a warning names the share. Writing the file is an output: report/baseline_file.py.

Items recognised several times are compared as samples (run/noise.py): as an item
ends its test is not yet decided, and ``against`` decides them all over the complete
run, failing those that regressed and, per engine, a check of its own that counts in
the exit status.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ..cases.rules import Tolerance, format_number
from ..engines import fingerprint_changes, fingerprint_id
from ..metrics import METRICS
from ..scoring.facts import FactRecord
from ..scoring.tolerance import Delta, Direction, ItemComparison, compare_item, direction, lost_facts
from . import noise
from .aggregate import HEADLINE_METRICS, metric_order
from .gates import GateResult
from .paired import Paired, paired_results
from .result import CaseResult
from .stored import load_report, results_of

MATCH_CHECK = "baseline matches this run"  # the name of the check that fails when no item matched
NOISE_CHECK = "baseline, beyond the noise of repeats"  # an engine's check of its items with repeats


@dataclass
class Baseline:
    path: Path
    results: dict[str, CaseResult] = field(default_factory=dict)  # by key
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)  # engine -> fingerprint (with id)
    exists: bool = False

    @classmethod
    def load(cls, path: Path, missing_ok: bool = False) -> Baseline:
        """Raises ReportError for a file that is not a report; a missing file is an empty
        baseline when ``missing_ok`` (it is about to be written)."""
        if missing_ok and not path.exists():
            return cls(path)
        document = load_report(path)
        return cls(path, {r.key: r for r in results_of(document)}, dict(document["engines"]), True)

    def compare(
        self,
        key: str,
        metrics: Mapping[str, float | None],
        tolerances: Mapping[str, Tolerance],
        facts: Sequence[FactRecord] | None = None,
        repeats: Mapping[str, Any] | None = None,
    ) -> ItemComparison:
        """An item as it ends against its record; with repeats in either run, its tests are
        not yet decided (``against`` decides them over the run)."""
        old = self.results.get(key)
        if old is None or not old.measured:
            return compare_item(None, metrics, tolerances)
        if noise.repeated(old.repeats) or noise.repeated(repeats):
            engine_unstable = old.engine in self.unstable_engines
            deltas = noise.item_deltas(old, metrics, repeats, tolerances, engine_unstable)
            return ItemComparison("compared", deltas, lost_facts(old.facts, facts))
        return compare_item(old.metrics, metrics, tolerances, old.facts, facts)

    @cached_property
    def unstable_engines(self) -> set[str]:
        return noise.unstable_engines(self.results.values())

    def changed_engine(self, engine: str, fingerprint: dict[str, Any] | None) -> list[str]:
        """What differs between the baseline's fingerprint of ``engine`` and this one;
        [] when they are the same, or the baseline does not know the engine."""
        old = self.engines.get(engine)
        if old is None or fingerprint is None or old.get("fingerprint_id") == fingerprint_id(fingerprint):
            return []
        return fingerprint_changes(old, fingerprint) or ["fingerprint differs"]


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
class EngineComparison:
    engine: str
    compared: int
    new: int
    regressed: list[CaseResult]  # worst first
    moves: list[MetricMove]
    config_changes: list[str]
    repeated: int = 0  # compared items with repeats in either run (judged over the run: run/noise.py)
    unstable: int = 0  # of those, items whose repeats differed in either run


@dataclass
class BaselineView:
    """The run against its baseline: per engine, and how many items matched at all."""

    path: str
    verb: str | None  # the writing verb, if the run writes the baseline
    records: int  # records in the baseline
    current: int  # items of this run that measured something
    matched: int  # of those, items that found their record
    min_match: float
    engines: list[EngineComparison]
    old: dict[str, CaseResult] = field(default_factory=dict, repr=False)  # the records, by key (for gates)
    families: list[noise.Family] = field(default_factory=list)  # the tests of items with repeats, per confidence

    @property
    def regressed(self) -> list[CaseResult]:
        """Every engine's regressed items, the one that got worse by most first."""
        return regressed_first([r for e in self.engines for r in e.regressed])

    @property
    def share(self) -> float | None:
        return self.matched / self.current if self.current else None

    def warnings(self) -> list[str]:
        share = self.share
        if share is None or not self.records or share >= self.min_match or match_check(self) is not None:
            return []  # (when nothing matched, the failing check says so)
        return [
            f"only {self.matched} of {self.current} items ({share:.0%}) found their record in the baseline "
            f"{self.path} (which has {self.records}); the rest are new. Check that the baseline comes from "
            f"this suite (item keys are case file paths relative to the project directory)"
        ]


def regressed_first(results: Sequence[CaseResult]) -> list[CaseResult]:
    """Regressed items, the one that got worse by most (beyond its tolerance) first."""
    found = [r for r in results if r.regressed]
    return sorted(found, key=lambda r: (-(r.baseline.worst if r.baseline else 0.0), r.key))


def against(
    baseline: Baseline, results: Sequence[CaseResult], verb: str | None, min_match: float, complete: bool = True
) -> tuple[list[CaseResult], BaselineView]:
    """The run against its baseline: the results with every item that has repeats decided
    over the whole run (a shard's wait for the merge: ``complete=False``), failed when it
    regressed (unless the run accepts its results: ``update``), and the view of them."""
    judged = noise.judge(results, baseline.results) if complete else noise.Judged()
    decided = [_decided(r, judged.deltas[r.key], verb != "update") if r.key in judged.deltas else r for r in results]
    return decided, view(baseline, decided, verb, min_match, judged.families)


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
) -> BaselineView:
    measured = [r for r in results if r.measured and r.engine is not None]
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
                if r.metrics.get(m) is not None and old.metrics.get(m) is not None:
                    by_metric.setdefault(m, []).append((old, r))
        moves = [_move(m, by_metric[m]) for m in sorted(by_metric, key=metric_order)]
        fingerprint = next((r.fingerprint for r in mine if r.fingerprint), None)
        repeated = [r for r in compared if _with_noise(r)]
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
    matched = sum(e.compared for e in engines)
    return BaselineView(
        str(baseline.path),
        verb,
        len(baseline.results),
        len(measured),
        matched,
        min_match,
        engines,
        baseline.results,
        list(families),
    )


def _with_noise(result: CaseResult) -> bool:
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


def noise_checks(view: BaselineView) -> list[GateResult]:
    """Per engine with items compared as samples (repeats), a check of its own: it fails
    when one of them regressed beyond the noise of its repeats, or the engine's overall
    change of a metric did (unless the run accepts its results as the baseline)."""
    checks = []
    tests = ", ".join(f"{f.tests} tests at {format_number(round(f.confidence * 100, 6))}%" for f in view.families)
    for e in view.engines:
        if not e.repeated:
            continue
        items = [r for r in e.regressed if _with_noise(r)]
        named = [
            f"{r.key}: "
            + "; ".join(f"{d.metric} {d.old:.4g} -> {d.new:.4g} ({d.how()})" for d in r.baseline.deltas if d.regressed)  # type: ignore[union-attr]
            for r in items
        ]
        parts = [f"{len(items)} regressed beyond the noise of their repeats ({_listed(named)})"]
        parts = (parts if items else []) + [
            o.message() for f in view.families for o in f.overall if o.engine == e.engine and o.regressed
        ]
        subject = (
            f"{e.engine}: {e.repeated} items with repeats against the baseline ({e.unstable} unstable; "
            f"{tests or 'not yet judged'}, Holm's method)"
        )
        accepted = view.verb == "update"
        if not parts:
            message = f"{subject}: ok, none shown to have got worse"
        elif accepted:
            message = f"{subject}: accepted as the new baseline (update): " + "; ".join(parts)
        else:
            message = f"{subject}: FAILED: " + "; ".join(parts)
        checks.append(GateResult(f"{e.engine}: {NOISE_CHECK}", not parts or accepted, message, None, e.repeated))
    return checks


def _listed(items: Sequence[str], limit: int = 5) -> str:
    return "; ".join(items[:limit]) + (f"; and {len(items) - limit} more" if len(items) > limit else "")


def match_check(view: BaselineView) -> GateResult | None:
    """When no item of the run found its record in a baseline that has records, gating
    against it checked nothing: a failing check says so (unless the run writes the
    baseline, which then gets those records)."""
    if view.verb is not None or not view.records or not view.current or view.matched:
        return None
    message = (
        f"{MATCH_CHECK}: FAILED: none of the {view.current} items found its record in {view.path} "
        f"({view.records} records), so nothing was compared. The baseline comes from another suite, or "
        f"item keys changed (case file paths relative to the project directory)"
    )
    return GateResult(MATCH_CHECK, False, message, 0.0, view.current)
