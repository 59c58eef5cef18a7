"""The run record: everything one run found, built once on the controller. Every output
(terminal summary, JSON report, baseline file, Markdown, GitHub annotations, HTML,
results directory) is a function of it, so they cannot disagree.
"""

from __future__ import annotations

import platform
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib.metadata import version
from typing import Any

from ..cases.gates import Gate
from ..cases.model import DatasetInfo
from ..engines import fingerprint_id
from ..metrics import DEFAULT_METRICS, METRICS
from .aggregate import HEADLINE_METRICS, DatasetSummary, Summary, dataset_summaries, summarize
from .baseline import BaselineView, match_check, noise_checks
from .gates import GateResult, dataset_checks
from .gates import evaluate as evaluate_gates
from .result import CaseResult
from .shard import ShardInfo
from .stored import results_of


@dataclass
class RunInfo:
    started_at: str  # ISO 8601, UTC
    finished_at: str
    duration_s: float  # wall clock
    workers: int  # pytest-xdist workers, 0 when serial
    status: str = "complete"  # complete | interrupted
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunRecord:
    run: RunInfo
    results: list[CaseResult]  # sorted by key
    engines: dict[str, dict[str, Any]]  # engine -> fingerprint, with its fingerprint_id
    summaries: dict[str, Summary]  # per engine, sorted
    gates: list[GateResult] = field(default_factory=list)  # aggregate gates and the baseline's match check
    baseline: BaselineView | None = None
    datasets: list[DatasetSummary] = field(default_factory=list)
    shard: ShardInfo | None = None  # a shard's run (--ocr-shard): part of a suite, judged when merged

    def counts(self) -> Counter[str]:
        """Items per outcome (passed, failed, error, filtered, skipped, invalid)."""
        return Counter(r.outcome for r in self.results)

    def with_outcome(self, *outcomes: str) -> list[CaseResult]:
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

    @classmethod
    def from_document(cls, document: dict[str, Any]) -> RunRecord:
        """A report read back (run/stored.py validated it); its baseline view is not kept."""
        known = RunInfo.__dataclass_fields__
        run = RunInfo(**{k: v for k, v in document["run"].items() if k in known})
        return cls(
            run,
            sorted(results_of(document), key=lambda r: r.key),
            dict(document["engines"]),
            {name: Summary.from_dict(s) for name, s in document["summary"].items()},
            [GateResult.from_dict(g) for g in document.get("gates", [])],
            None,
            [DatasetSummary(**d) for d in document.get("datasets", [])],
            ShardInfo.from_dict(document["shard"]) if document.get("shard") else None,
        )


def engines_of(results: Iterable[CaseResult]) -> dict[str, dict[str, Any]]:
    """Each engine's fingerprint (the first one seen in key order), with its id."""
    engines: dict[str, dict[str, Any]] = {}
    for r in results:
        if r.engine is not None and r.fingerprint and r.engine not in engines:
            engines[r.engine] = {**r.fingerprint, "fingerprint_id": fingerprint_id(r.fingerprint)}
    return dict(sorted(engines.items()))


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
    baseline: BaselineView | None,
) -> list[GateResult]:
    """What is judged on the whole run, not per item: the aggregate gates (those against
    the baseline when there is one), every dataset's check that it evaluated something,
    and the baseline's match check."""
    judged = evaluate_gates(ordered_gates(gates), results, baseline.old if baseline is not None else None)
    judged += dataset_checks(dataset_summaries(datasets, results))
    if baseline is None:
        return judged
    check = match_check(baseline)
    return judged + noise_checks(baseline) + ([check] if check is not None else [])


def build(
    results: Iterable[CaseResult],
    run: RunInfo,
    gates: Sequence[GateResult] = (),
    baseline: BaselineView | None = None,
    datasets: Iterable[DatasetInfo] = (),
    shard: ShardInfo | None = None,
) -> RunRecord:
    ordered = sorted(results, key=lambda r: r.key)
    return RunRecord(
        run,
        ordered,
        engines_of(ordered),
        summarize(ordered),
        list(gates),
        baseline,
        dataset_summaries(datasets, ordered),
        shard,
    )
