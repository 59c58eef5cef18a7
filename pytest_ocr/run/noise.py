"""Telling a change from the noise of repeats, over the whole run.

An item recognised several times (``--ocr-repeat``, ``repeat:``) has, for each metric,
a sample of values in each run rather than one value. Comparing it with its baseline
record then asks whether the metric got worse by more than its tolerance beyond what
those samples explain:

- each compared metric of each such item is a **one-sided permutation test** of the two
  samples' means (``scipy.stats.permutation_test`` with ``permutation_type="independent"``
  computes the same, and is the tests' oracle): under "nothing changed beyond the
  tolerance", the repeats of both runs are exchangeable once the tolerance is taken off
  this run's values; every arrangement is counted when there are no more than RESAMPLES,
  else RESAMPLES random ones with a fixed seed;
- a change is **certain** (p = 0) when neither run showed any spread for the item nor
  for any item of its engine: a deterministic engine recognised several times;
- an item whose repeats differ is never regressed by a change within the spread (worst
  minus best repeat) they showed in either run, whatever the test says;
- each engine's **overall change** of each such metric, the mean over its items of how
  much worse than its tolerance each got, is a one-sided sign-flip test over the items
  (the paired test of run/paired.py, one-sided and with the tolerance taken off), so a
  regression spread over many items is caught where no single item's repeats can show it.

The run's tests, per confidence (95 % unless a tolerance names another), are one family:
**Holm's method** adjusts each p-value for the family's size, so that a run in which
nothing changed raises any false alarm with a chance of at most 1 - confidence, however
many items it compares. A test is *shown* when its adjusted p-value is at most that.

Everything depends only on the values: items are taken in key order and resampling
uses a fixed seed, so serial runs, pytest-xdist, merged shards and ``compare`` give
bit-identical numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np

from ..cases.rules import Tolerance, format_number
from ..codec import Coded, encode
from ..metrics import METRICS
from ..scoring.tolerance import SLACK, Delta, Noise
from .paired import BLOCK, CONFIDENCE, RESAMPLES, SEED
from .result import CaseResult

# The sign-flip test of an engine's overall change resamples more when Holm's first
# step asks for a smaller p-value than RESAMPLES can give, up to this many, and up to
# WORK sign flips of single items in all (2e8: about a second).
MAX_RESAMPLES = 1_000_000
WORK = 200_000_000


def sample(metrics: Mapping[str, float | None], repeats: Mapping[str, Any] | None, metric: str) -> list[float]:
    """An item's values of ``metric``: one per repeat (scoring/repeats.py records them), or
    its one value; sorted, since repeats arrive in any order and sums of floats depend on it."""
    if repeats:
        found = [m.get(metric) for m in repeats.get("metrics") or ()]
        if found and all(isinstance(v, (int, float)) for v in found):
            return sorted(float(v) for v in found)
    value = metrics.get(metric)
    return [] if value is None else [float(value)]


def repeated(repeats: Mapping[str, Any] | None) -> bool:
    return bool(repeats) and int(repeats.get("n", 1)) > 1  # type: ignore[union-attr]


def unstable(repeats: Mapping[str, Any] | None) -> bool:
    return bool(repeats and repeats.get("unstable"))


def unstable_engines(*runs: Iterable[CaseResult]) -> set[str]:
    """Engines that gave differing outputs for some item in any of the runs."""
    return {r.engine for run in runs for r in run if r.engine is not None and unstable(r.repeats)}


# -- the tests ----------------------------------------------------------------------------


def _greater(null: np.ndarray, observed: float, exact: bool) -> float:
    """One-sided ("greater"), counted as scipy.stats.permutation_test counts: the observed
    value included within a relative 100 ulp, plus one for random resamples."""
    gamma = abs(np.finfo(float).eps * 100 * observed)
    adjustment = 0 if exact else 1
    return float((np.count_nonzero(null >= observed - gamma) + adjustment) / (len(null) + adjustment))


def two_sample_p(old: Sequence[float], new: Sequence[float], resamples: int = RESAMPLES) -> float:
    """The chance, if both samples came from one distribution, that ``new``'s mean
    exceeds ``old``'s by at least as much as it does (values oriented so that larger is
    worse, the tolerance already taken off ``new``)."""
    pooled = np.asarray([*old, *new], dtype=float)
    n, k = len(pooled), len(new)
    observed = float(np.mean(new) - np.mean(old))
    total = pooled.sum()
    if math.comb(n, k) <= resamples:  # every arrangement
        picks = np.array(list(combinations(range(n), k)), dtype=np.intp)
        exact = True
        chosen = pooled[picks].sum(axis=1)
    else:
        rng = np.random.default_rng(SEED)
        rows = max(1, BLOCK // n)
        parts = []
        for start in range(0, resamples, rows):
            size = min(rows, resamples - start)
            order = rng.permuted(np.tile(np.arange(n), (size, 1)), axis=1)
            parts.append(pooled[order[:, :k]].sum(axis=1))
        chosen, exact = np.concatenate(parts), False
    null = chosen / k - (total - chosen) / (n - k)
    return _greater(null, observed, exact)


def sign_flip_p(differences: Sequence[float], resamples: int = RESAMPLES) -> float:
    """One-sided paired test: the chance, if each item's difference were as likely
    negative as positive, that their mean is at least the one measured."""
    d = np.asarray(differences, dtype=float)
    n = len(d)
    observed = float(d.mean())
    if n < 63 and 2**n <= resamples:  # every pattern of signs
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        signs = 1 - 2 * ((codes >> np.arange(n)) & 1)
        return _greater((signs @ d) / n, observed, True)
    rows = max(1, BLOCK // n)
    sizes = [min(rows, resamples - start) for start in range(0, resamples, rows)]
    parts = []
    for size, seed in zip(sizes, np.random.SeedSequence(SEED).spawn(len(sizes)), strict=True):
        bits = np.random.default_rng(seed).integers(0, 2, size=(size, n), dtype=np.int8)
        parts.append(((1 - 2 * bits) * d).sum(axis=1) / n)
    return _greater(np.concatenate(parts), observed, False)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the given order: a test is rejected at
    level a exactly when its adjusted p-value is at most a."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    return adjusted


# -- one item -----------------------------------------------------------------------------


def _oriented(metric: str, sample: Sequence[float]) -> list[float]:
    """Values so that larger is worse."""
    return list(sample) if METRICS[metric].better == "lower" else [-v for v in sample]


def item_noise(
    metric: str, old: Sequence[float], new: Sequence[float], allowed: float, certain: bool, confidence: float
) -> Noise:
    """The test of one item's metric (not yet adjusted for the family)."""
    worse_old, worse_new = _oriented(metric, old), _oriented(metric, new)
    beyond = float(np.mean(worse_new) - np.mean(worse_old)) - allowed
    if certain:
        p = 0.0 if beyond > SLACK else 1.0
    else:
        p = two_sample_p(worse_old, [v - allowed for v in worse_new])
    spread = max(float(np.ptp(old)), float(np.ptp(new)))
    return Noise(len(old), len(new), spread, p, confidence)


def item_deltas(
    old: CaseResult,
    metrics: Mapping[str, float | None],
    repeats: Mapping[str, Any] | None,
    tolerances: Mapping[str, Tolerance],
    engine_unstable: bool,
) -> tuple[Delta, ...]:
    """The deltas of an item that has repeats in either run (``metrics`` and ``repeats``:
    this run's), each with its test, not yet adjusted for the family (``judge`` does)."""
    certain = not (engine_unstable or unstable(old.repeats) or unstable(repeats))
    found = []
    for metric, tolerance in tolerances.items():
        before, after = old.metrics.get(metric), metrics.get(metric)
        if metric not in METRICS or before is None or after is None:
            continue
        old_values, new_values = sample(old.metrics, old.repeats, metric), sample(metrics, repeats, metric)
        confidence = tolerance.confidence or CONFIDENCE
        noise = item_noise(metric, old_values, new_values, tolerance.allowed(before), certain, confidence)
        found.append(Delta(metric, before, after, tolerance, noise))
    return tuple(found)


def tolerances_of(result: CaseResult) -> dict[str, Tolerance]:
    """What the item compared, as its result recorded it."""
    return {m: Tolerance.parse(t) for m, t in result.tolerances.items() if m in METRICS}


# -- the run --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Overall(Coded):
    """One engine's overall change of one metric over its items with repeats: the mean of
    how much worse than its tolerance each item got, and the sign-flip test of it."""

    engine: str
    metric: str
    n: int
    beyond: float  # the items' mean worsening beyond their tolerance, as recorded (negative: within)
    p_value: float
    confidence: float
    adjusted: float
    family: int

    @property
    def regressed(self) -> bool:
        return self.beyond > SLACK and self.adjusted <= 1 - self.confidence + SLACK

    def message(self) -> str:
        level = f"{format_number(round(self.confidence * 100, 6))}%"
        verdict = "REGRESSED" if self.regressed else "ok" if self.beyond <= SLACK else "ok (not shown)"
        sign = "+" if self.beyond > 0 else ""
        return (
            f"{self.engine}: {self.metric} over {self.n} items with repeats, worse than their tolerances by "
            f"{sign}{self.beyond:.4g} on average (p = {self.p_value:.3g}, {self.adjusted:.3g} over the run's "
            f"{self.family} tests, Holm, at {level}): {verdict}"
        )


@dataclass(frozen=True)
class Family(Coded):
    """The tests of one confidence: items' metrics and engines' overall changes."""

    confidence: float
    tests: int
    item_tests: int
    # The smallest p-value the repeats of the family's uncertain items can give (None: all
    # certain), and the one Holm's first step asks for: when the first is the larger, no
    # single uncertain item can be shown to have regressed; only overall changes can.
    floor: float | None
    needed: float
    overall: tuple[Overall, ...] = ()
    # The smallest p-value the sign flips of the largest overall change can give (None: every
    # pattern counted, or no overall change): its resampling is bounded by WORK.
    overall_floor: float | None = None

    def note(self) -> str | None:
        """What the tests cannot show, when that limits the run's verdicts."""
        level = f"{format_number(round(self.confidence * 100, 6))}%"
        notes = []
        if self.floor is not None and self.floor > self.needed:
            notes.append(
                f"with these repeats no single unstable item can be shown to have regressed at {level}: the "
                f"smallest p-value their samples give is {self.floor:.3g}, and Holm's method over the run's "
                f"{self.tests} tests asks for {self.needed:.3g}; only engines' overall changes can be shown "
                f"(more repeats lower the first)"
            )
        if self.overall_floor is not None and self.overall_floor > self.needed:
            notes.append(
                f"an engine's overall change is resolved down to p = {self.overall_floor:.3g} over its many items, "
                f"above the {self.needed:.3g} Holm's method asks for at {level}: it cannot be shown"
            )
        return "; ".join(notes) or None

    def to_dict(self) -> dict[str, Any]:
        return {**encode(self), "note": self.note()}  # said for readers, not read back


@dataclass
class Judged:
    """Every item with repeats against its record, decided over the run."""

    deltas: dict[str, tuple[Delta, ...]] = field(default_factory=dict)  # by key
    families: list[Family] = field(default_factory=list)

    @property
    def overall(self) -> list[Overall]:
        return [o for f in self.families for o in f.overall]


def _resamples(needed: float, n: int) -> int:
    """Sign flips enough to resolve p-values down to a quarter of ``needed``, within the bounds."""
    return max(RESAMPLES, min(MAX_RESAMPLES, math.ceil(4 / needed), WORK // max(1, n)))


def _floor(old_n: int, new_n: int) -> float:
    """The smallest p-value a permutation test of samples this size can give."""
    arrangements = math.comb(old_n + new_n, new_n)
    return 1 / arrangements if arrangements <= RESAMPLES else 1 / (RESAMPLES + 1)


def judge(results: Iterable[CaseResult], old: Mapping[str, CaseResult]) -> Judged:
    """Every measured result with repeats in either run whose record in ``old`` was
    measured: its deltas decided over the run's family (Holm), and each engine's overall
    change of each compared metric."""
    pairs = sorted(
        (
            (old[r.key], r)
            for r in results
            if r.measured
            and r.key in old
            and old[r.key].measured
            and (repeated(r.repeats) or repeated(old[r.key].repeats))
        ),
        key=lambda pair: pair[1].key,
    )
    if not pairs:
        return Judged()
    noisy = unstable_engines([n for _, n in pairs], old.values())
    provisional = {
        new.key: item_deltas(before, new.metrics, new.repeats, tolerances_of(new), new.engine in noisy)
        for before, new in pairs
    }
    engines = {new.key: new.engine or "" for _, new in pairs}
    judged = Judged()
    confidences = sorted({d.noise.confidence for ds in provisional.values() for d in ds if d.noise is not None})
    decided: dict[tuple[str, int], Delta] = {}
    for confidence in confidences:
        tests = [
            (key, i, d)
            for key, ds in provisional.items()
            for i, d in enumerate(ds)
            if d.noise is not None and d.noise.confidence == confidence
        ]
        by_engine_metric: dict[tuple[str, str], list[Delta]] = {}
        for key, _, d in tests:
            by_engine_metric.setdefault((engines[key], d.metric), []).append(d)
        groups = sorted((k, ds) for k, ds in by_engine_metric.items() if len(ds) >= 2)
        size = len(tests) + len(groups)
        needed = (1 - confidence) / size
        draws = [(len(ds), _resamples(needed, len(ds))) for _, ds in groups]
        overall_p = [sign_flip_p([d.beyond for d in ds], r) for (_, ds), (_, r) in zip(groups, draws, strict=True)]
        adjusted = holm([d.noise.p_value for _, _, d in tests if d.noise is not None] + overall_p)
        for (key, i, d), a in zip(tests, adjusted[: len(tests)], strict=True):
            assert d.noise is not None
            decided[(key, i)] = replace(d, noise=replace(d.noise, adjusted=a, family=size))
        overall = tuple(
            Overall(engine, metric, len(ds), math.fsum(d.beyond for d in ds) / len(ds), p, confidence, a, size)
            for ((engine, metric), ds), p, a in zip(groups, overall_p, adjusted[len(tests) :], strict=True)
        )
        uncertain = [d.noise for _, _, d in tests if d.noise is not None and d.noise.p_value > 0]
        floor = min((_floor(n.old_n, n.new_n) for n in uncertain), default=None)
        overall_floor = max((1 / (r + 1) for n, r in draws if n >= 63 or 2**n > r), default=None)
        judged.families.append(Family(confidence, size, len(tests), floor, needed, overall, overall_floor))
    for key, ds in provisional.items():
        judged.deltas[key] = tuple(decided.get((key, i), d) for i, d in enumerate(ds))
    return judged
