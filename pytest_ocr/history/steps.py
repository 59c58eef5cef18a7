"""Where a metric's history stepped: the commit at which a series of values per commit
moved to a new level, the levels, the size of the step and its interval.

The fit is asv's (airspeed velocity, ``asv/step_detect.py``), ported to numpy: a
piecewise-constant function fitted to the values by the L1 Potts model (each level the
weighted median of its points, a penalty ``gamma`` per jump), ``gamma`` chosen from the
data by minimising ``beta * jumps + log(L1 error)`` with ``beta = 4 ln(n) / n`` (a BIC-like
criterion that also fits the noise's serial correlation). Like asv, the exact solver runs
on pieces of at most MAX_PIECE points, then neighbouring pieces are merged while that
lowers the cost, and boundaries are moved where that lowers it, so a fit is linear in the
series' length. The medians and distances are computed in the order asv's C helper
computes them, so the fits agree with asv's to the bit, with one departure: asv looks for
the best penalty by a rough golden-section search, and the criterion has several minima
(asv fits a staircase of three 8-sigma steps as one level); the port also tries a grid of
penalties over asv's range and keeps a fit only where asv's criterion is strictly lower.
tests/test_history_steps.py holds asv itself as the oracle on generated series.

Which steps are *regressions* is asv's rule too (``detect_regressions``): walking back from
the latest level, a level is reported when a later level is worse than it by more than the
later or the earlier segment's mean absolute deviation (and a relative threshold): the
steps that explain why the latest value is worse than the best one, not every wobble.
"Worse" follows the metric's direction (the metric registry's ``worse_by``), where asv only
knows "higher is worse".

A step's interval is a 95 % percentile bootstrap of the difference of the two segments'
medians, each segment's measured values resampled on their own (unweighted), with the run
aggregates' resample count and fixed seed.

Pure functions of the values: no store, no pytest.

The port keeps asv's copyright notice and licence (BSD 3-Clause), below.
"""

# asv's licence, which its port here is under:
#
# Copyright (c) 2018-2023, asv Developers.
# Copyright (c) 2011-2018, Michael Droettboom, Space Telescope Science Institute, Pauli Virtanen
#
# All rights reserved.
#
# Redistribution and use in source and binary forms, with or without modification,
# are permitted provided that the following conditions are met:
#
# * Redistributions of source code must retain the above copyright notice, this
#   list of conditions and the following disclaimer.
# * Redistributions in binary form must reproduce the above copyright notice, this
#   list of conditions and the following disclaimer in the documentation and/or
#   other materials provided with the distribution.
# * Neither the name of the Astropy Team nor the names of its contributors may be
#   used to endorse or promote products derived from this software without
#   specific prior written permission.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND
# ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED
# WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
# DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR
# ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES
# (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES;
# LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON
# ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
# (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
# SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

import numpy as np

from ..metrics import METRICS
from ..run.aggregate import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from ..scoring.tolerance import direction

MAX_PIECE = 20  # asv's solve_potts_approx: the exact solver over pieces of at most 20 points
GAMMA_GRID = 16  # penalties tried besides asv's golden-section search, evenly on its log scale
CONFIDENCE = 0.95  # of a step's interval


@dataclass(frozen=True)
class Point:
    """One commit's value. ``position`` is the commit's place in the branch (increasing
    with commit order); ``value`` None or NaN: not measured there (the engine or suite did
    not run, or its value was only carried forward), which is not a measurement and stays
    out of the fit. ``weight``: the point's relative weight (None: the median weight)."""

    position: int
    value: float | None
    weight: float | None = None
    commit: str = ""


@dataclass(frozen=True)
class Segment:
    """Commits at one level: ``first`` and ``last`` are the positions of the first and last
    measured commit in it."""

    first: int
    last: int
    level: float  # the weighted median of its values
    spread: float  # mean absolute deviation from the level (asv's error estimate)
    n: int  # measured commits


@dataclass(frozen=True)
class Step:
    """A move from one level to the next. ``position`` (and ``commit``) is the first
    commit measured at the new level; when commits before it were not measured, the step
    happened at one of ``earliest`` .. ``position``."""

    position: int
    commit: str
    earliest: int
    before: float
    after: float
    size: float  # after - before, in the metric's units (the sign is not the direction)
    low: float  # interval of the size, at ``confidence``
    high: float
    confidence: float
    worse: bool  # the new level is worse in the metric's direction
    n_before: int  # measured commits at each level
    n_after: int


@dataclass(frozen=True)
class SeriesKey:
    """One tracked series: an aggregate (``item`` empty) or one item's value."""

    suite: str
    engine: str
    metric: str
    kind: Literal["macro", "micro", "item"]
    item: str = ""


@dataclass(frozen=True)
class Found:
    key: SeriesKey
    step: Step


def regressions(series: Mapping[SeriesKey, Sequence[Point]]) -> list[Found]:
    """Every series' regressions (``worsened``), in the order of the mapping."""
    return [Found(key, step) for key, points in series.items() for step in worsened(points, key.metric)]


def worsened(points: Sequence[Point], metric: str, threshold: float = 0.0, min_size: int = 2) -> list[Step]:
    """The steps that made the series worse and stayed: asv's ``detect_regressions`` over
    ``fit(points)``, in ``metric``'s direction, oldest first. ``threshold``: a relative
    size under which a step is ignored unless needed to explain the latest value;
    ``min_size``: a level spanning fewer commits counts only if the series does not come
    back from it."""
    segments = fit(points)
    if not segments:
        return []
    worse_by = METRICS[metric].worse_by
    found: list[int] = []  # index of the segment before each regression
    last = segments[-1]
    best_level, best_spread = last.level, last.spread  # the best later level beyond the noise
    short: tuple[float, float] | None = None
    # Walking back: a level better than a later one by more than either's noise is where it
    # got worse.
    for i in range(len(segments) - 1, -1, -1):
        current = segments[i]
        margin = max(current.spread, best_spread, threshold * abs(current.level))
        if worse_by(current.level, best_level) > margin:
            if current.last - current.first + 1 < min_size:  # commits it spans, as asv counts
                short = (best_level, best_spread)
            found.append(i)
            best_level, best_spread = current.level, current.spread
        elif short is not None:
            # a short level counts only if the series did not come back to where it was
            if worse_by(current.level, short[0]) <= margin:
                found.pop()
                best_level, best_spread = short
            short = None
    points_at = _by_position(points)
    return [_step(segments[i], segments[i + 1], points_at, metric) for i in reversed(found)]


def steps(points: Sequence[Point], metric: str) -> list[Step]:
    """Every move between neighbouring levels of ``fit(points)``, oldest first."""
    segments = fit(points)
    points_at = _by_position(points)
    return [_step(a, b, points_at, metric) for a, b in pairwise(segments)]


def fit(points: Sequence[Point]) -> list[Segment]:
    """The piecewise-constant fit of the measured points (asv's ``detect_steps``)."""
    measured = [p for p in points if _is_measured(p)]
    if not measured:
        return []
    y = np.array([p.value for p in measured], dtype=float)
    costs = _Costs(y, _weights(points, measured))
    rights = _solve_autogamma(costs)
    segments = []
    left = 0
    for right in rights:
        level, dist = costs.median_dist(left, right - 1)
        n = right - left
        segments.append(Segment(measured[left].position, measured[right - 1].position, level, abs(dist / n), n))
        left = right
    return segments


def _is_measured(point: Point) -> bool:
    # asv: a non-positive weight is missing data too
    value, weight = point.value, point.weight
    return value is not None and not math.isnan(value) and (weight is None or not weight <= 0)


def _weights(points: Sequence[Point], measured: list[Point]) -> np.ndarray:
    """Weights relative to the median of every given weight (asv's normalisation); a
    missing weight is the median's."""
    given = [p.weight for p in points if p.weight is not None and not math.isnan(p.weight)]
    if not given:
        return np.ones(len(measured))
    median = statistics.median(given) or 1.0
    return np.array(
        [1.0 if p.weight is None or math.isnan(p.weight) else p.weight / median for p in measured], dtype=float
    )


class _Costs:
    """asv's ``mu(l, r)`` and ``dist(l, r)``: the weighted median of the values l..r
    (inclusive) and their weighted L1 distance to it. Every range of at most MAX_PIECE
    points is computed at once (the exact solver reads only those); longer ones on demand."""

    def __init__(self, y: np.ndarray, w: np.ndarray) -> None:
        self.y = y
        self.w = w
        self.n = len(y)
        self.unit = bool(np.all(w == 1.0))
        # short[r][k - 1]: dist(r - k + 1, r); short_mu the same for mu
        short = np.zeros((self.n, min(MAX_PIECE, self.n)))
        short_mu = np.zeros_like(short)
        for k in range(1, short.shape[1] + 1):
            windows = np.lib.stride_tricks.sliding_window_view
            short_mu[k - 1 :, k - 1], short[k - 1 :, k - 1] = _medians(windows(y, k), windows(w, k), self.unit)
        self.short: list[list[float]] = short.tolist()
        self.short_mu: list[list[float]] = short_mu.tolist()
        self.cache: dict[tuple[int, int], tuple[float, float]] = {}

    def dist(self, left: int, right: int) -> float:
        if right - left < MAX_PIECE:
            return self.short[right][right - left]
        return self.median_dist(left, right)[1]

    def median_dist(self, left: int, right: int) -> tuple[float, float]:
        if right - left < MAX_PIECE:
            return self.short_mu[right][right - left], self.short[right][right - left]
        found = self.cache.get((left, right))
        if found is None:
            mu, dist = _medians(self.y[None, left : right + 1], self.w[None, left : right + 1], self.unit)
            found = self.cache[left, right] = (float(mu[0]), float(dist[0]))
        return found


def _medians(y: np.ndarray, w: np.ndarray, unit: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each row's weighted median and weighted L1 distance to it, as asv's C helper
    computes them: the pairs sorted, the first whose running weight reaches half the total
    (averaged with the next when it is exactly half), the distance summed in the rows'
    order."""
    rows, k = y.shape
    if unit:
        ordered = np.sort(y, axis=1)
        mu = ordered[:, k // 2] if k % 2 else (ordered[:, k // 2] + ordered[:, k // 2 - 1]) / 2
    else:
        order = np.lexsort((w, y), axis=1)
        ys = np.take_along_axis(y, order, axis=1)
        running = np.cumsum(np.take_along_axis(w, order, axis=1), axis=1)  # summed one by one, as the C loop
        half = running[:, -1] / 2
        reached = running >= half[:, None]
        at = np.where(reached.any(axis=1), reached.argmax(axis=1), k - 1)
        mu = ys[np.arange(rows), at]
        tie = (running[np.arange(rows), at] == half) & (at + 1 < k)
        mu = np.where(tie, (ys[np.arange(rows), np.minimum(at + 1, k - 1)] + mu) / 2, mu)
    dist = np.cumsum(w * np.abs(y - mu[:, None]), axis=1)[:, -1]
    return mu, dist


def _solve_autogamma(costs: _Costs) -> list[int]:
    """The segments' right ends (exclusive) for the penalty asv's information criterion
    prefers (asv's ``solve_potts_autogamma``)."""
    n = costs.n
    gamma_0 = costs.dist(0, n - 1) or 1.0  # zero spread: any positive scale
    best_value = math.inf
    best_rights: list[int] = []

    def objective(x: float) -> float:
        nonlocal best_value, best_rights
        rights = _solve_approx(costs, gamma_0 * math.exp(x))
        value = _criterion(costs, rights)
        if value < best_value:
            best_value, best_rights = value, rights
        return value

    low = math.log(0.1 / n)
    _golden_search(objective, low, 0.0, xatol=abs(low) * 0.1, ftol=0, expand_bounds=True)
    # The criterion is not unimodal in gamma: asv's rough search can stop at a local minimum (a staircase
    # of three 8-sigma steps fitted as one level). A grid over asv's range finds the lower ones; it replaces
    # asv's choice only by a strictly lower value of asv's criterion.
    for x in np.linspace(low, 0.0, GAMMA_GRID):
        objective(float(x))
    return best_rights


def _criterion(costs: _Costs, rights: list[int]) -> float:
    """asv's information criterion of a fit: ``beta * segments + log(noise floor + L1
    error)``, the error that of the residuals with their serial correlation fitted."""
    y, w, n = costs.y, costs.w, costs.n
    levels = np.array([costs.median_dist(left, right - 1)[0] for left, right in pairwise([0, *rights])])
    errors = y - np.repeat(levels, np.diff([0, *rights]))

    def sigma_star(rho: float) -> float:
        # |E_0| + sum_{j>0} |E_j - rho E_{j-1}|, summed in order as asv sums it
        terms = np.empty(n)
        terms[0] = abs(errors[0]) * w[0]
        terms[1:] = np.abs(errors[1:] - rho * errors[:-1]) * w[1:]
        return float(np.cumsum(terms)[-1])

    rho = _golden_search(sigma_star, -1, 1, xatol=0.05, expand_bounds=True)
    if len(levels) > 2:
        floor = 0.1 * float(np.min(np.abs(np.diff(levels))))  # the measurement's noise floor
    else:
        floor = 0.001 * float(np.min(np.abs(levels)))
    return 4 * math.log(n) / n * len(rights) + math.log(max(1e-300, floor) + sigma_star(rho))


def _solve_approx(costs: _Costs, gamma: float) -> list[int]:
    """asv's ``solve_potts_approx``: the exact Potts solution over pieces of at most
    MAX_PIECE points, then pieces merged and boundaries moved where the cost drops."""
    return _merge(costs, gamma, _solve(costs, gamma))


def _solve(costs: _Costs, gamma: float) -> list[int]:
    """The Bellman recursion of Friedrich et al. (2008), "Complexity penalized
    M-estimation" (asv's ``solve_potts`` with min_size 1, max_size MAX_PIECE)."""
    n = costs.n
    cost = [-gamma] + [0.0] * n  # cost[r]: the best cost of points 0..r-1
    start = [0] * n  # start[r]: where the last segment of the best fit of 0..r begins, minus 1
    for right in range(n):
        row = costs.short[right]
        best = math.inf
        for left in range(max(right + 1 - MAX_PIECE, 0), right + 1):
            b = cost[left] + gamma + row[right - left]
            if b <= best:  # ties: the later boundary, as asv
                best = b
                start[right] = left - 1
        cost[right + 1] = best
    rights = []
    right = n - 1
    while right >= 0:
        rights.append(right + 1)
        right = start[right]
    return rights[::-1]


def _merge(costs: _Costs, gamma: float, rights: list[int]) -> list[int]:
    """asv's ``merge_pieces``."""
    dist = costs.dist
    rights = list(rights)
    while True:  # merge the first neighbours whose merge lowers the cost most
        least = 0.0
        at = len(rights)
        left = 0
        for j in range(1, len(rights)):
            if at < j - 2:
                break
            apart = dist(left, rights[j - 1] - 1) + dist(rights[j - 1], rights[j] - 1) + gamma
            change = dist(left, rights[j] - 1) - apart
            if change <= least:
                least = change
                at = j - 1
            left = rights[j - 1]
        if at == len(rights):
            break
        del rights[at]
    # The exact solver saw pieces of at most MAX_PIECE points: a boundary may sit better nearby.
    left = 0
    for j in range(1, len(rights)):
        best = dist(left, rights[j - 1] - 1) + dist(rights[j - 1], rights[j] - 1)
        move = 0
        for off in range(-MAX_PIECE, MAX_PIECE + 1):
            if rights[j - 1] + off - 1 < left or rights[j - 1] + off > rights[j] - 1 or off == 0:
                continue
            score = dist(left, rights[j - 1] + off - 1) + dist(rights[j - 1] + off, rights[j] - 1)
            if score < best:
                move = off
                best = score
        rights[j - 1] += move
        left = rights[j - 1]
    return rights


def _golden_search(
    f: Callable[[float], float], a: float, b: float, xatol: float, ftol: float = 1e-8, expand_bounds: bool = False
) -> float:
    """A minimum of ``f`` on [a, b] by golden-section search (asv's ``golden_search``);
    ``expand_bounds``: the interval widened so that ``f`` is first evaluated at a and b."""
    ratio = 2 / (1 + math.sqrt(5))
    if expand_bounds:
        x0 = (ratio * a - (1 - ratio) * b) / (2 * ratio - 1)
        x3 = (ratio * b - (1 - ratio) * a) / (2 * ratio - 1)
    else:
        x0, x3 = a, b
    x1 = ratio * x0 + (1 - ratio) * x3
    x2 = (1 - ratio) * x0 + ratio * x3
    f1 = f(x1)
    f2 = f(x2)
    f0 = max(abs(f1), abs(f2))
    while abs(x0 - x3) >= xatol and abs(f1 - f2) >= ftol * f0:
        if f2 < f1:
            x0, x1 = x1, x2
            x2 = ratio * x1 + (1 - ratio) * x3
            f1, f2 = f2, f(x2)
        else:
            x3, x2 = x2, x1
            x1 = ratio * x2 + (1 - ratio) * x0
            f2, f1 = f1, f(x1)
    return x2 if f2 < f1 else x1


def _by_position(points: Sequence[Point]) -> dict[int, Point]:
    return {p.position: p for p in points}


def _step(before: Segment, after: Segment, points_at: Mapping[int, Point], metric: str) -> Step:
    previous = [p for p in points_at.values() if before.first <= p.position <= before.last]
    following = [p for p in points_at.values() if after.first <= p.position <= after.last]
    low, high = _interval(_values(previous), _values(following))
    positions = sorted(points_at)
    earliest = positions[positions.index(before.last) + 1]
    size = after.level - before.level
    return Step(
        position=after.first,
        commit=points_at[after.first].commit,
        earliest=earliest,
        before=before.level,
        after=after.level,
        size=size,
        low=low,
        high=high,
        confidence=CONFIDENCE,
        worse=direction(METRICS[metric].worse_by(before.level, after.level)) == "worse",
        n_before=before.n,
        n_after=after.n,
    )


def _values(points: list[Point]) -> np.ndarray:
    return np.array([p.value for p in points if _is_measured(p)], dtype=float)


def _interval(before: np.ndarray, after: np.ndarray) -> tuple[float, float]:
    """Percentile bootstrap interval of median(after) - median(before), each resampled on its own."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    drawn_before = before[rng.integers(0, len(before), size=(BOOTSTRAP_RESAMPLES, len(before)))]
    drawn_after = after[rng.integers(0, len(after), size=(BOOTSTRAP_RESAMPLES, len(after)))]
    changes = np.median(drawn_after, axis=1) - np.median(drawn_before, axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(changes, [tail, 100 - tail])
    return float(low), float(high)
