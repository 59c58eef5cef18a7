"""The run record: everything one run found, built once on the controller. Every output
(terminal summary, JSON report, baseline file, Markdown, GitHub annotations, HTML,
results directory) is a function of it, so they cannot disagree.
"""

from __future__ import annotations

import platform
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import version
from typing import Any, Literal

from ..cases.gates import Gate
from ..cases.model import DatasetInfo
from ..codec import Coded
from ..engines import fingerprint_id
from ..engines.sampling import may_sample
from ..metrics import DEFAULT_METRICS, METRICS
from ..metrics.registry import Scorer, scorers_of
from .aggregate import HEADLINE_METRICS, DatasetSummary, Summary, dataset_summaries, summarize
from .comparison import Comparison
from .gates import GateResult, Worded, dataset_checks, match_check, noise_checks, scorer_checks
from .gates import evaluate as evaluate_gates
from .result import CaseResult, Outcome
from .shard import ShardInfo
from .stored import results_of, scored_names, stored_scorers


@dataclass
class RunInfo(Coded):
    started_at: str  # ISO 8601, UTC
    finished_at: str
    duration_s: float  # wall clock
    workers: int  # pytest-xdist workers, 0 when serial
    status: Literal["complete", "interrupted"] = "complete"
    not_run: int = 0  # OCR items collected that have no result
    interruption: str | None = None  # why the run stopped early
    shards: int = 0  # the shard reports merged into this run (pytest-ocr merge); 0: one run
    pytest: str = field(default_factory=lambda: version("pytest"))
    python: str = field(default_factory=platform.python_version)
    platform: str = sys.platform

    @classmethod
    def of(
        cls, started: float, finished: float, workers: int, not_run: int = 0, interruption: str | None = None
    ) -> RunInfo:
        """Times are Unix times; a run with items that did not run is ``interrupted``."""

        def iso(t: float) -> str:
            return datetime.fromtimestamp(t, timezone.utc).isoformat()

        interrupted = bool(not_run or interruption)
        return cls(
            iso(started),
            iso(finished),
            max(0.0, finished - started),
            workers,
            "interrupted" if interrupted else "complete",
            not_run,
            (interruption or "stopped early") if interrupted else None,
        )


@dataclass(frozen=True)
class CachedDraws:
    """An engine that may sample, every output of which this run took from the cache: its
    scores are those of one earlier draw per item, not of what it answers now."""

    engine: str
    outputs: int  # its outputs in this run, all from the cache
    why: str  # why it may sample: its fingerprint (engines/sampling.py), or its history

    def text(self) -> str:
        return (
            f"{self.engine}: all {self.outputs} outputs came from the cache, and {self.why}: these scores are one "
            f"earlier draw per item, not what it answers now (--ocr-refresh draws again; --ocr-repeat N measures "
            f"the spread)"
        )


@dataclass(frozen=True)
class Rescored:
    """That a report was re-scored: from which report, when, with which profile, and the
    scorers before and after."""

    source: str  # the report re-scored, as given
    at: str  # ISO 8601, UTC
    profile: str | None  # the normalisation profile every case was scored with; None: each case's own
    before: dict[str, Scorer] = field(default_factory=dict)
    after: dict[str, Scorer] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "at": self.at,
            "profile": self.profile,
            "before": {name: s.to_dict() for name, s in self.before.items()},
            "after": {name: s.to_dict() for name, s in self.after.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rescored:
        before = {name: Scorer.from_dict(s) for name, s in data["before"].items()}
        after = {name: Scorer.from_dict(s) for name, s in data["after"].items()}
        return cls(data["source"], data["at"], data["profile"], before, after)


@dataclass
class RunRecord:
    run: RunInfo
    results: list[CaseResult]  # sorted by key
    engines: dict[str, dict[str, Any]]  # engine -> fingerprint, with its fingerprint_id
    summaries: dict[str, Summary]  # per engine, sorted
    gates: list[GateResult] = field(default_factory=list)  # aggregate gates and the baseline's match check
    comparison: Comparison | None = None  # against the run's baseline
    datasets: list[DatasetSummary] = field(default_factory=list)
    shard: ShardInfo | None = None  # a shard's run (--ocr-shard): part of a suite, judged when merged
    cached_draws: list[CachedDraws] = field(default_factory=list)  # said once per engine in every summary
    # What made each metric's values (and the facts'), once per run: one installation scores a run.
    scorers: dict[str, Scorer] = field(default_factory=dict)
    rescored: Rescored | None = None  # a report's results scored again (pytest-ocr rescore)

    def counts(self) -> Counter[Outcome]:
        """Items per outcome (passed, failed, error, filtered, skipped, invalid)."""
        return Counter(r.outcome for r in self.results)

    def with_outcome(self, *outcomes: Outcome) -> list[CaseResult]:
        return [r for r in self.results if r.outcome in outcomes]

    def shown_metrics(self) -> list[str]:
        """The metrics every summary shows: CER and WER, and every metric an item has a
        threshold or a tolerance on or asked for by name, in the registry's order."""
        computed = {m for s in self.summaries.values() for m in s.metrics}
        wanted = {m for r in self.results for m in (*r.thresholds, *r.tolerances)}
        return [
            m for m in METRICS if m in computed and (m in HEADLINE_METRICS or m in wanted or m not in DEFAULT_METRICS)
        ]

    @property
    def failed_gates(self) -> list[GateResult]:
        return [g for g in self.gates if not g.passed]

    def gating(self) -> Gating:
        """What could fail the run and what did."""
        return Gating.of(self)

    @classmethod
    def from_document(cls, document: dict[str, Any]) -> RunRecord:
        """A report read back (run/stored.py validated it); its baseline view is not kept."""
        results = sorted(results_of(document), key=lambda r: r.key)
        return cls(
            RunInfo.from_dict(document["run"]),
            results,
            dict(document["engines"]),
            {name: Summary.from_dict(s) for name, s in document["summary"].items()},
            [GateResult.from_dict(g) for g in document.get("gates", [])],
            None,
            [DatasetSummary.from_dict(d) for d in document.get("datasets", [])],
            ShardInfo.from_dict(document["shard"]) if document.get("shard") else None,
            scorers=stored_scorers(document, results),
            rescored=Rescored.from_dict(document["rescored"]) if document.get("rescored") else None,
        )


@dataclass(frozen=True)
class Gating:
    """What could fail the run and what did, counted from its results and gates (not from
    which options were given), so that no view can say nothing was gated while items
    failed, and the exit status of a merged run agrees with them."""

    items: int  # OCR items (case files that could not be loaded are counted apart)
    thresholded: int  # items with thresholds
    over_thresholds: int  # failed items with a threshold not met
    baseline: str | None  # the baseline file's name; "" when only the results say there was one
    compared: int  # items that found their record in the baseline
    comparing: int  # of those, items with a metric to compare (a threshold or a tolerance)
    new: int  # items the baseline did not have
    regressed: int  # items that failed for being worse than their baseline
    failed_items: int  # items over their thresholds or regressed (each counted once)
    accepted: int  # items worse than their baseline, accepted as its new records (update)
    gates: int  # aggregate gates judged (per engine)
    gates_failed: int
    checks_failed: tuple[str, ...]  # the run's own checks that failed (baseline match, empty dataset)
    errors: int
    invalid: int  # case files that could not be loaded
    other_failed: int  # failed items over no threshold and not regressed (never expected; never hidden)

    @classmethod
    def of(cls, record: RunRecord) -> Gating:
        items = [r for r in record.results if r.outcome != "invalid"]
        failed = [r for r in items if r.outcome == "failed"]
        with_baseline = [r for r in items if r.baseline is not None]
        compared = [r for r in with_baseline if r.baseline is not None and r.baseline.status == "compared"]
        over = [r for r in failed if any(not c.passed for c in r.checks)]
        regressed = [r for r in failed if r.regressed]
        counted = {r.key for r in over + regressed}
        if record.comparison is not None:
            baseline: str | None = record.comparison.name
        else:
            baseline = "" if with_baseline else None
        return cls(
            items=len(items),
            thresholded=sum(bool(r.thresholds) for r in items),
            over_thresholds=len(over),
            baseline=baseline,
            compared=len(compared),
            comparing=sum(bool(r.tolerances) for r in compared),
            new=len(with_baseline) - len(compared),
            regressed=len(regressed),
            failed_items=len(counted),
            accepted=sum(r.regressed and r.outcome == "passed" for r in items),
            gates=sum(g.gate is not None for g in record.gates),
            gates_failed=sum(g.gate is not None and not g.passed for g in record.gates),
            checks_failed=tuple(g.name for g in record.gates if g.gate is None and not g.passed),
            errors=sum(r.outcome == "error" for r in items),
            invalid=len(record.results) - len(items),
            other_failed=sum(r.key not in counted for r in failed),
        )

    @property
    def failed(self) -> bool:
        """Whether anything failed the run: an item, an aggregate gate, a run check."""
        return bool(
            self.failed_items
            or self.other_failed
            or self.gates_failed
            or self.checks_failed
            or self.errors
            or self.invalid
        )


def engines_of(results: Iterable[CaseResult]) -> dict[str, dict[str, Any]]:
    """Each engine's fingerprint (the first one seen in key order), with its id."""
    engines: dict[str, dict[str, Any]] = {}
    for r in results:
        if r.engine is not None and r.fingerprint and r.engine not in engines:
            engines[r.engine] = {**r.fingerprint, "fingerprint_id": fingerprint_id(r.fingerprint)}
    return dict(sorted(engines.items()))


def cached_draws(
    results: Sequence[CaseResult], engines: dict[str, dict[str, Any]], baseline: Comparison | None
) -> list[CachedDraws]:
    """Each engine that may sample (by its fingerprint, or because its repeats gave
    different outputs in the baseline) and whose outputs all came from the cache."""
    found = []
    for engine, fingerprint in engines.items():
        mine = [r for r in results if r.engine == engine]
        cached = sum(r.cached for r in mine)
        if not cached or any(r.inference_s is not None for r in mine):  # none cached, or a new draw
            continue
        why = may_sample(fingerprint)
        if why is None and baseline is not None:
            unstable = sum(
                bool(r.engine == engine and r.repeats and r.repeats.get("unstable")) for r in baseline.old.values()
            )
            if unstable:
                why = f"its repeats gave different outputs on {unstable} item(s) of the baseline"
        if why is not None:
            found.append(CachedDraws(engine, cached, why))
    return found


def _declared_order(gate: Gate) -> tuple[bool, str, int]:
    line = gate.source.rpartition(":")[2]
    return (gate.file is not None, gate.file or "", int(line) if line.isdigit() else 0)


def ordered_gates(gates: Iterable[Gate]) -> list[Gate]:
    """The project's and the command line's gates as given, then each file's by file and
    line: the same order whichever item's report brought a file's gates first."""
    return sorted(gates, key=_declared_order)


def judge(
    gates: Iterable[Gate],
    results: Sequence[CaseResult],
    datasets: Iterable[DatasetInfo],
    baseline: Comparison | None,
    worded: Worded,
) -> list[GateResult]:
    """What is judged on the whole run, not per item: the aggregate gates (those against
    the baseline when there is one, their statistics in ``worded``'s words), every
    dataset's check that it evaluated something, and the baseline's match check."""
    old = baseline.old if baseline is not None else None
    refused = None  # a run that updates its baseline accepts its values as they are
    if baseline is not None and baseline.verb != "update":
        refused = {r.metric: r.text() for r in baseline.refused}
    judged = evaluate_gates(ordered_gates(gates), results, old, worded, refused)
    judged += dataset_checks(dataset_summaries(datasets, results))
    if baseline is None:
        return judged
    check = match_check(baseline)
    return judged + noise_checks(baseline) + scorer_checks(baseline, results) + ([check] if check is not None else [])


def build(
    results: Iterable[CaseResult],
    run: RunInfo,
    gates: Sequence[GateResult] = (),
    baseline: Comparison | None = None,
    datasets: Iterable[DatasetInfo] = (),
    shard: ShardInfo | None = None,
    scorers: dict[str, Scorer] | None = None,
    rescored: Rescored | None = None,
) -> RunRecord:
    """The run's record; ``scorers``: those the results were scored by (None: this
    installation's, as the plugin scores); ``rescored``: the results were a report's, scored again."""
    ordered = sorted(results, key=lambda r: r.key)
    engines = engines_of(ordered)
    return RunRecord(
        run,
        ordered,
        engines,
        summarize(ordered),
        list(gates),
        baseline,
        dataset_summaries(datasets, ordered),
        shard,
        cached_draws(ordered, engines, baseline),
        scorers_of(scored_names(ordered)) if scorers is None else scorers,
        rescored,
    )
