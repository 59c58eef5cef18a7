"""Aggregate gates judged after every item ran, per engine (the gates themselves are
declared in case files and on the command line: cases/gates.py): a threshold on an
average, or a tolerance against the baseline judged on the paired statistics of the
items both runs measured (run/paired.py).

A gate over fewer items than its ``min_cases`` (default 1) fails: an empty or tiny
selection (``-k`` that matched nothing of a tag, an engine that crashed on every image)
must not pass a gate by having nothing to measure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..cases.gates import Gate
from ..cases.rules import Threshold, Tolerance, format_number
from ..codec import Coded
from .aggregate import DatasetSummary, aggregate_metric
from .comparison import compared_as_samples, compared_metrics
from .paired import CONFIDENCE, Paired, measured_pairs, paired_results
from .result import CaseResult

if TYPE_CHECKING:
    from .comparison import Comparison


@dataclass(frozen=True)
class GateResult(Coded):
    name: str
    passed: bool
    message: str
    value: float | None
    cases: int
    gate: Gate | None = None  # None for the baseline's own check (see baseline.match_gate)
    paired: Paired | None = None  # a gate against the baseline: the statistics that decided

    @property
    def source(self) -> tuple[str | None, int | None]:
        """Where the gate was declared: (file, line), or (None, None) for the command line."""
        file, _, line = (self.gate.source if self.gate else "").rpartition(":")
        return (file or None, int(line) if line.isdigit() else None)


def _members(results: Iterable[CaseResult], scope: Iterable[tuple[str, str]]) -> list[CaseResult]:
    members = list(results)
    for kind, name in scope:
        if kind == "tag":
            members = [r for r in members if name in r.tags]
        elif kind == "group":
            members = [r for r in members if r.group == name]
    return members


def judge(gate: Gate, engine: str, results: Sequence[CaseResult]) -> GateResult:
    """One gate on one engine's results (already limited to the gate's file): the
    verdict and its message from the same comparison."""
    members = [r for r in _members(results, gate.scope) if r.metrics.get(gate.metric) is not None]
    name = gate.label(engine)
    where = f" (declared at {gate.source})" if gate.source else ""
    if len(members) < gate.min_cases:
        message = (
            f"{gate.subject(engine)}: FAILED: only {len(members)} case(s) with {gate.metric} "
            f"(min_cases {gate.min_cases}); a gate does not pass on a selection this small{where}"
        )
        return GateResult(name, False, message, None, len(members), gate)
    value = getattr(aggregate_metric(members, gate.metric), gate.kind)
    passed = value is not None and Threshold(gate.metric, gate.op, gate.bound).check(value)
    shown = "undefined" if value is None else format_number(value)
    message = (
        f"{gate.subject(engine)} = {shown} over {len(members)} case(s), "
        f"expected {gate.op} {format_number(gate.bound)}: {'ok' if passed else 'FAILED'}{where}"
    )
    return GateResult(name, passed, message, value, len(members), gate)


# Paired statistics judged at a tolerance, in words (report/paired_text.judged): statistics
# return numbers, and the views' module words them, so the run is handed the words.
Worded = Callable[[Paired, Tolerance], str]


def judge_against(
    gate: Gate, engine: str, results: Sequence[CaseResult], old: Mapping[str, CaseResult], worded: Worded
) -> GateResult:
    """A gate against the baseline (``cer.macro:+0.002@95%``) on one engine: the paired
    statistics over the items both runs measured, and the one predicate that decides."""
    tolerance = gate.tolerance
    assert tolerance is not None
    pairs = [
        (before, r)
        for before, r in measured_pairs(_members(results, gate.scope), old)
        if r.metrics.get(gate.metric) is not None and before.metrics.get(gate.metric) is not None
    ]
    name = gate.label(engine)
    where = f" (declared at {gate.source})" if gate.source else ""
    subject = f"{gate.subject(engine)} against the baseline"
    needed = max(2, gate.min_cases)
    found = (
        paired_results(gate.metric, pairs, tolerance.confidence or CONFIDENCE).get(gate.kind)
        if len(pairs) >= needed
        else None
    )
    if found is None:
        message = (
            f"{subject}: FAILED: {len(pairs)} case(s) with {gate.metric} in both runs"
            f"{'' if gate.kind == 'macro' or len(pairs) < needed else ' but no counts to pool'}; "
            f"comparing an aggregate needs {needed} (min_cases {gate.min_cases}, and two for an interval){where}"
        )
        return GateResult(name, False, message, None, len(pairs), gate)
    passed = not found.regressed(tolerance)
    message = f"{subject}: {worded(found, tolerance)}{where}"
    return GateResult(name, passed, message, found.new, found.n, gate, found)


def evaluate(
    gates: Iterable[Gate],
    results: Sequence[CaseResult],
    baseline: Mapping[str, CaseResult] | None = None,
    worded: Worded | None = None,
    refused: Mapping[str, str] | None = None,
) -> list[GateResult]:
    """Every gate on every engine it concerns. A gate scoped to an engine is judged for
    that engine even when none of its items ran (and then fails on min_cases); an
    unscoped one for each engine that ran items of the gate's file (all files for
    project and command-line gates). A gate against the baseline is judged only with
    one (``baseline``: its records by key; ``worded`` words its statistics), and fails with
    the line of ``refused`` (metric -> why) when the two runs scored its metric differently."""
    outcomes = []
    for gate in gates:
        if gate.tolerance is not None and baseline is None:
            continue
        pool = [r for r in results if r.engine is not None and (gate.file is None or r.file == gate.file)]
        engines = [name for kind, name in gate.scope if kind == "engine"] or sorted(
            {r.engine for r in pool if r.engine}
        )
        if not engines:
            outcomes.append(
                GateResult(
                    gate.label("(no engine)"),
                    False,
                    f"{gate.subject('(no engine)')}: FAILED: no OCR item ran"
                    f"{f' (declared at {gate.source})' if gate.source else ''}",
                    None,
                    0,
                    gate,
                )
            )
            continue
        for engine in engines:
            mine = [r for r in pool if r.engine == engine]
            if gate.tolerance is not None and refused and gate.metric in refused:
                message = f"{gate.subject(engine)} against the baseline: FAILED: {refused[gate.metric]}"
                outcomes.append(GateResult(gate.label(engine), False, message, None, 0, gate))
            elif gate.tolerance is not None and baseline is not None:
                assert worded is not None, "a gate against the baseline is judged with the words of its statistics"
                outcomes.append(judge_against(gate, engine, mine, baseline, worded))
            else:
                outcomes.append(judge(gate, engine, mine))
    return outcomes


def dataset_checks(datasets: Iterable[DatasetSummary]) -> list[GateResult]:
    """A dataset that evaluated nothing on an engine (every entry filtered, skipped or
    errored) fails, unless its suite says ``allow_empty: true``: a run that measured
    nothing of a dataset must not pass as if it had."""
    checks = []
    for d in datasets:
        if d.evaluated or d.allow_empty:
            continue
        message = (
            f"{d.file} on {d.engine}: FAILED: nothing evaluated of {d.total} entries: {d.filtered} filtered, "
            f"{d.skipped} skipped (unusable entries and items that errored); `allow_empty: true` in its "
            f"dataset: block accepts this"
        )
        checks.append(GateResult(f"{d.file} on {d.engine}: dataset evaluated nothing", False, message, 0.0, 0))
    return checks


# -- the checks of a run against its baseline ----------------------------------------------

MATCH_CHECK = "baseline matches this run"  # the name of the check that fails when no item matched
SCORER_CHECK = "baseline scored alike"  # a metric the run compares, scored differently by the baseline
NOISE_CHECK = "baseline, beyond the noise of repeats"  # an engine's check of its items with repeats


def noise_checks(view: Comparison) -> list[GateResult]:
    """Per engine with items compared as samples (repeats), a check of its own: it fails
    when one of them regressed beyond the noise of its repeats, or the engine's overall
    change of a metric did (unless the run accepts its results as the baseline)."""
    checks = []
    tests = ", ".join(f"{f.tests} tests at {format_number(round(f.confidence * 100, 6))}%" for f in view.families)
    for e in view.engines:
        if not e.repeated:
            continue
        items = [r for r in e.regressed if compared_as_samples(r)]
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


def scorer_checks(view: Comparison, results: Sequence[CaseResult]) -> list[GateResult]:
    """A check per metric (or the facts) that the run's items compare with the baseline
    (a threshold, a tolerance, the facts that held) and that the two runs scored with
    different scorers: not compared, so the check fails, saying which scorers (unless the
    run accepts its results as the baseline: update)."""
    if view.verb == "update":
        return []
    compared = compared_metrics(results)
    return [
        GateResult(f"{SCORER_CHECK}: {r.metric}", False, f"{SCORER_CHECK}: FAILED: {r.text()}", None, view.matched)
        for r in view.refused
        if r.metric in compared
    ]


def match_check(view: Comparison) -> GateResult | None:
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
