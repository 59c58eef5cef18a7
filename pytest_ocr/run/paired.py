"""Paired statistics of two runs over the items both measured: how much an aggregate
changed, how sure we can be of it, and what the suite can tell from noise.

For one engine and one metric, each item i has a value before and after (and, for the
micro average, its counts before and after). The change of the macro average is the
mean of the items' changes; the change of the micro average is the metric's formula
over the pooled counts after, minus the same before. Two resampling methods, as
sacreBLEU's ``--paired-bs`` and ``--paired-ar`` do for translation:

- the **interval** of the change is a paired percentile bootstrap: items are drawn with
  replacement, both sides of a drawn item together, RESAMPLES times; the interval holds
  the middle ``confidence`` share of the resampled changes (``scipy.stats.bootstrap``
  with ``paired=True, method="percentile"`` computes the same, and is the test's oracle);
- the **p-value** is a two-sided paired permutation (sign-flip) test: under "no change",
  each item's before and after are exchangeable, so they are swapped at random
  (``scipy.stats.permutation_test`` with ``permutation_type="samples"``: every
  arrangement when there are no more than RESAMPLES of them, else RESAMPLES random ones,
  counted as scipy counts them).

The **detectable** change is the distance from the estimate to the interval's better
end: a worsening smaller than it leaves the interval reaching zero, so it cannot be told
from noise at that confidence. Everything uses a fixed seed: the same inputs give the
same numbers. Pure numpy; resampling runs in blocks so that memory stays bounded.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cases.rules import Tolerance, format_number
from ..codec import Coded, encode
from ..metrics import METRICS, pooled
from ..scoring.tolerance import SLACK, Direction, direction
from .result import CaseResult

RESAMPLES = 10_000
CONFIDENCE = 0.95
SEED = 20216  # fixed: the same runs give the same intervals and p-values
BLOCK = 2_000_000  # resampled values held at once per thread (16 MB of indices)
THREADS = min(2, os.cpu_count() or 1)  # numpy draws and gathers without the GIL


@dataclass(frozen=True)
class Paired(Coded):
    """One aggregate of one engine, over the items both runs measured."""

    metric: str
    kind: str  # macro | micro
    n: int  # items in both runs with this metric
    old: float
    new: float
    low: float  # the interval of the change (new - old) at `confidence`
    high: float
    p_value: float  # two-sided: the chance of a change this large if nothing changed
    detectable: float  # the smallest worsening that can be told from noise
    confidence: float

    @property
    def change(self) -> float:
        return self.new - self.old

    @property
    def worsening(self) -> tuple[float, float]:
        """The interval of how much worse the aggregate got (in the metric's direction)."""
        if METRICS[self.metric].better == "lower":
            return (self.low, self.high)
        return (-self.high, -self.low)

    @property
    def worse_by(self) -> float:
        return METRICS[self.metric].worse_by(self.old, self.new)

    @property
    def direction(self) -> Direction:
        """same, worse or better: the estimate's direction."""
        return direction(self.worse_by)

    def regressed(self, tolerance: Tolerance) -> bool:
        """The one predicate for an aggregate against a tolerance: without a confidence the
        estimate got worse by more than the tolerance; with one (computed at that
        confidence), the whole interval of the worsening lies above it."""
        allowed = tolerance.allowed(self.old) + SLACK
        if tolerance.confidence not in (None, self.confidence):
            raise ValueError(f"an interval at {self.confidence} judged with a tolerance at {tolerance.confidence}")
        if tolerance.confidence is None:
            return self.worse_by > allowed
        return self.worsening[0] > allowed

    @property
    def level(self) -> str:
        """The confidence as people write it: ``95%``."""
        return f"{format_number(round(self.confidence * 100, 6))}%"

    def to_dict(self) -> dict[str, Any]:
        return {**encode(self), "change": self.change}  # said for readers, not read back


def measured_pairs(results: Iterable[CaseResult], old: Mapping[str, CaseResult]) -> list[tuple[CaseResult, CaseResult]]:
    """(record, result) for each measured result whose record (by key) in ``old`` was
    measured too: the items two runs can be compared on."""
    found = []
    for result in results:
        record = old.get(result.key)
        if result.measured and record is not None and record.measured:
            found.append((record, result))
    return found


def paired_results(
    metric: str, pairs: Sequence[tuple[CaseResult, CaseResult]], confidence: float = CONFIDENCE
) -> dict[str, Paired]:
    """The statistics of a metric's macro and micro averages (by kind) over pairs of
    results (before, after), those that both have its value; each item's counts are its
    details' ``counts``. The pairs are taken in key order, so the numbers depend on the
    set of items alone, never on the order results arrived in."""
    both = sorted(
        ((o, n) for o, n in pairs if o.metrics.get(metric) is not None and n.metrics.get(metric) is not None),
        key=lambda pair: pair[1].key,
    )
    counts = [[(r.details.get(metric) or {}).get("counts") or {} for r in side] for side in zip(*both, strict=True)]
    found = paired(
        metric,
        [o.metrics[metric] for o, _ in both],  # type: ignore[misc]
        [n.metrics[metric] for _, n in both],  # type: ignore[misc]
        *(counts or (None, None)),
        confidence=confidence,
    )
    return {p.kind: p for p in found}


def _interval(resampled: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(resampled, [tail, 100 - tail])
    return float(low), float(high)


def _p_value(null: np.ndarray, observed: float, exact: bool) -> float:
    """Two-sided, as scipy.stats.permutation_test counts: each tail with the observed
    value included (within a relative 100 ulp), doubled, at most 1."""
    gamma = abs(np.finfo(float).eps * 100 * observed)
    adjustment = 0 if exact else 1
    greater = (np.count_nonzero(null >= observed - gamma) + adjustment) / (len(null) + adjustment)
    less = (np.count_nonzero(null <= observed + gamma) + adjustment) / (len(null) + adjustment)
    return float(min(1.0, 2 * min(greater, less)))


def _resample(drawn: np.ndarray, flipped: np.ndarray, resamples: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """Column sums of ``resamples`` bootstrap samples of the rows of ``drawn`` (n x a),
    and ``bits @ flipped`` for sign patterns ``bits`` (0/1, 1: an item's sides swapped)
    over the rows of ``flipped`` (n x b): every pattern when there are no more than
    ``resamples`` of them (exact), else ``resamples`` random ones.

    The work is cut into blocks of rows, each with its own generator spawned from SEED,
    so the numbers do not depend on how many threads share the blocks."""
    n = len(drawn)
    columns = [_compact(c) for c in drawn.T]
    flipped_columns = np.ascontiguousarray(flipped.T)
    rows = max(1, BLOCK // n)
    sizes = [min(rows, resamples - start) for start in range(0, resamples, rows)]
    seeds = np.random.SeedSequence(SEED).spawn(len(sizes))
    exact = n < 63 and 2**n <= resamples

    def block(size: int, seed: np.random.SeedSequence) -> tuple[np.ndarray, np.ndarray | None]:
        rng = np.random.default_rng(seed)
        # one draw of items for every column (np.take on a column is the fastest gather)
        index = rng.integers(0, n, size=(size, n), dtype=np.int32 if n < 2**31 else np.int64)
        sums = np.stack([np.take(column, index).sum(axis=1, dtype=np.float64) for column in columns], axis=1)
        if exact:
            return sums, None
        bits = np.unpackbits(rng.integers(0, 256, size=(size, (n + 7) // 8), dtype=np.uint8), axis=1, count=n)
        # (products summed, not a matrix product: BLAS's own threads stall these ones)
        return sums, np.stack([(bits * column).sum(axis=1) for column in flipped_columns], axis=1)

    with ThreadPoolExecutor(THREADS) as pool:
        done = list(pool.map(block, sizes, seeds))
    sums = np.concatenate([d[0] for d in done])
    if exact:
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        return sums, ((codes >> np.arange(n)) & 1).astype(np.float64) @ flipped, True
    return sums, np.concatenate([d[1] for d in done if d[1] is not None]), False


def _compact(column: np.ndarray) -> np.ndarray:
    """Whole counts as float32 (exact below 2**24, and half the bytes to gather); other
    values as they are."""
    if len(column) and np.all(column == np.round(column)) and np.abs(column).max() < 2**24:
        return column.astype(np.float32)
    return np.ascontiguousarray(column)


def paired(
    metric: str,
    old: Sequence[float],
    new: Sequence[float],
    old_counts: Sequence[Mapping[str, float]] | None = None,
    new_counts: Sequence[Mapping[str, float]] | None = None,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
) -> list[Paired]:
    """The change of the macro average over paired values, and with every item's counts
    before and after, of the micro average (the metric's formula over the summed counts),
    from the same resamples. [] for fewer than two pairs."""
    n = len(old)
    if (
        len(new) != n
        or (old_counts is not None and len(old_counts) != n)
        or (new_counts is not None and len(new_counts) != n)
    ):
        raise ValueError(f"paired values differ in number: {n} before, {len(new)} after")
    if n < 2:
        return []
    before, after = np.asarray(old, dtype=float), np.asarray(new, dtype=float)
    delta = (after - before)[:, None]
    keys = sorted({k for c in (*(old_counts or ()), *(new_counts or ())) for k in c})
    if keys and old_counts is not None and new_counts is not None:
        counts_before = np.array([[c.get(k, 0.0) for k in keys] for c in old_counts], dtype=float)
        counts_after = np.array([[c.get(k, 0.0) for k in keys] for c in new_counts], dtype=float)
    else:
        keys, counts_before, counts_after = [], np.zeros((n, 0)), np.zeros((n, 0))
    k = len(keys)
    # a swapped item's change changes sign, and its counts move from one side to the other
    sums, flips, exact = _resample(
        np.hstack([delta, counts_before, counts_after]), np.hstack([delta, counts_before - counts_after]), resamples
    )

    results = []
    observed = float(delta.mean())
    null = (delta.sum() - 2 * flips[:, 0]) / n
    results.append(
        _finish(
            metric,
            "macro",
            n,
            math.fsum(old) / n,  # exactly the means any other view of these items computes
            math.fsum(new) / n,
            observed,
            sums[:, 0] / n,
            null,
            exact,
            confidence,
        )
    )
    if k:
        total_before = np.array([math.fsum(column) for column in counts_before.T])
        total_after = np.array([math.fsum(column) for column in counts_after.T])
        value_before = float(_pooled(metric, keys, total_before[None, :])[0])
        value_after = float(_pooled(metric, keys, total_after[None, :])[0])
        changes = _pooled(metric, keys, sums[:, 1 + k :]) - _pooled(metric, keys, sums[:, 1 : 1 + k])
        moved = flips[:, 1:]
        null = _pooled(metric, keys, total_after + moved) - _pooled(metric, keys, total_before - moved)
        results.append(
            _finish(
                metric,
                "micro",
                n,
                value_before,
                value_after,
                value_after - value_before,
                changes,
                null,
                exact,
                confidence,
            )
        )
    return results


def _pooled(metric: str, keys: list[str], sums: np.ndarray) -> np.ndarray:
    """The metric's own formula on each row of summed counts: it is not vectorised, and
    need not be (one call per resample)."""
    return np.array([pooled(metric, dict(zip(keys, row, strict=True))) for row in sums.tolist()])


def _finish(
    metric: str,
    kind: str,
    n: int,
    old: float,
    new: float,
    observed: float,
    resampled: np.ndarray,
    null: np.ndarray,
    exact: bool,
    confidence: float,
) -> Paired:
    low, high = _interval(resampled, confidence)
    # how far the interval reaches to the better side of the estimate
    reach = observed - low if METRICS[metric].better == "lower" else high - observed
    return Paired(
        metric,
        kind,
        n,
        old,
        new,
        low,
        high,
        _p_value(null, observed, exact),
        max(0.0, float(reach)) if math.isfinite(reach) else math.inf,
        confidence,
    )
