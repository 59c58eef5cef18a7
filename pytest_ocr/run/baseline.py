"""A stored run to compare against (``--ocr-baseline PATH``, or BASE of ``pytest-ocr
compare``): its records by key and its engines' fingerprints.

A baseline is a JSON report of an earlier run (``--ocr-report``), e.g. the main
branch's CI artifact, or a run recorded in the history store (``history:main``,
``history:merge-base``: history/baseline.py reads it into the same records). Each item
is compared with the record of the same key there as it ends (scoring/tolerance.py
decides "regressed"); items recognised several times are compared as samples, their
tests decided over the complete run (run/noise.py). What the comparison found over the
whole run: run/comparison.py. Writing the file is an output: report/baseline_file.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..cases.rules import Tolerance
from ..engines import fingerprint_changes, fingerprint_id
from ..metrics.registry import FACTS, METRICS, Scorer, scorer_of
from ..scoring.facts import FactRecord
from ..scoring.tolerance import ItemComparison, compare_item, lost_facts
from . import noise
from .result import CaseResult
from .stored import load_report, results_of, stored_scorers


@dataclass(frozen=True)
class Refusal:
    """A metric (or ``facts``) the two runs scored with different scorers: not compared."""

    metric: str
    here: Scorer  # this run's (HEAD's)
    there: Scorer  # the baseline's
    baseline: str  # the baseline as outputs name it
    file: Path | None  # the baseline's report, to re-score (None: a run from the history store)

    def text(self) -> str:
        if self.file is not None:
            rescored = self.file.with_name(f"{self.file.stem}-rescored{self.file.suffix or '.json'}")
            fix = f"re-score the baseline with: pytest-ocr rescore {self.file} -o {rescored}"
        else:
            fix = "run the baseline's commit again with this pytest-ocr to record it with these scorers"
        return (
            f"{self.metric}: not compared: scored by {self.here} here and {self.there} in the baseline "
            f"({self.baseline}); {fix}"
        )


@dataclass
class Baseline:
    path: Path | None  # the file (None: a run from the history store, never written)
    results: dict[str, CaseResult] = field(default_factory=dict)  # by key
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)  # engine -> fingerprint (with id)
    exists: bool = False
    name: str = ""  # how outputs name it: the file's path, or the run from history
    notes: list[str] = field(default_factory=list)  # said once, with the run's notes
    # What scored the baseline's values, and the run's compared with it (None: this
    # installation's, as a run scores): a metric whose scorers differ is not compared.
    scorers: dict[str, Scorer] = field(default_factory=dict)
    here: Mapping[str, Scorer] | None = None

    def __post_init__(self) -> None:
        self.name = self.name or str(self.path)

    @classmethod
    def load(cls, path: Path, missing_ok: bool = False) -> Baseline:
        """Raises ReportError for a file that is not a report; a missing file is an empty
        baseline when ``missing_ok`` (it is about to be written)."""
        if missing_ok and not path.exists():
            return cls(path)
        document = load_report(path)
        results = results_of(document)
        scorers = stored_scorers(document, results)
        return cls(path, {r.key: r for r in results}, dict(document["engines"]), True, scorers=scorers)

    def refused(self, metric: str) -> Refusal | None:
        """Why ``metric`` (or ``facts``) is not compared: the runs scored it differently; None
        when they agree, or one of them did not score it."""
        there = self.scorers.get(metric)
        if self.here is not None:
            here = self.here.get(metric)
        else:
            here = scorer_of(metric) if metric == FACTS or metric in METRICS else None
        if there is None or here is None or there == here:
            return None
        return Refusal(metric, here, there, self.name, self.path)

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
        if self.scorers:  # what the runs scored differently is not compared (the run's check says so)
            tolerances = {m: t for m, t in tolerances.items() if self.refused(m) is None}
            facts = None if self.refused(FACTS) else facts
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
