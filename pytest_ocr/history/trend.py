"""A suite's metrics over the last commits of a branch, as the store holds them: one series
per suite, engine, metric and kind (macro, micro), one cell per commit, oldest first.

A commit's run is its latest complete attempt (else its latest attempt, which is then
interrupted). Commits are in the order the store first recorded a run of them (the order
CI ran them in), across every suite asked for. A suite or an engine that did not run at a
commit has its last value *carried* there, marked as carried: never a measurement, and
left out of step detection. A cell is marked where the engine's fingerprint, pytest-ocr's
version or a scorer's version differs from the series' previous measured cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..metrics import METRICS  # a metric with a direction: "facts" rows have none
from .steps import Found, Point, SeriesKey, regressions
from .store import RunRow, Store

KINDS = ("macro", "micro")
OVERALL = ""  # the aggregates' scope over all of an engine's items (not a tag or group)


@dataclass(frozen=True)
class Cell:
    value: float | None  # None: no value yet (nothing to carry)
    carried: bool  # the value of an earlier commit: this commit did not measure it
    low: float | None = None
    high: float | None = None
    run_id: int | None = None  # the run measured here (None when carried)
    changes: tuple[str, ...] = ()  # what changed since the previous measured cell


@dataclass(frozen=True)
class Series:
    suite: str
    engine: str
    metric: str
    kind: str
    cells: tuple[Cell, ...]  # one per commit of the window, oldest first
    commits: tuple[str, ...]  # the window's commits, as Trend.commits

    def key(self) -> SeriesKey:
        return SeriesKey(self.suite, self.engine, self.metric, "micro" if self.kind == "micro" else "macro")

    def points(self) -> list[Point]:
        """The measured cells as step detection's points (carried ones as not measured)."""
        pairs = enumerate(zip(self.cells, self.commits, strict=True))
        return [Point(i, None if c.carried else c.value, commit=commit) for i, (c, commit) in pairs]


@dataclass(frozen=True)
class Trend:
    branch: str
    commits: tuple[str, ...]  # the window, oldest first ("" for a run recorded without a commit)
    runs: dict[tuple[str, int], RunRow]  # (suite, commit position) -> the run measured there
    series: tuple[Series, ...]


def window(store: Store, suite: str, branch: str, last: int) -> dict[str, RunRow]:
    """The suite's run at each of the branch's latest ``last`` commits, by commit, oldest first."""
    limit = max(100, 4 * last)
    while True:
        rows = store.runs(suite, branch, limit)
        chosen = _per_commit(rows)
        if len(chosen) >= last or len(rows) < limit:
            break
        limit *= 4
    return dict(list(chosen.items())[-last:])


def _per_commit(rows: Sequence[RunRow]) -> dict[str, RunRow]:
    """Each commit's run (its latest complete attempt, else its latest), commits in the
    order their first run was recorded. A run without a commit stands for itself."""
    first: dict[str, int] = {}
    best: dict[str, RunRow] = {}
    for run in sorted(rows, key=lambda r: r.id):
        commit = run.commit or f"#{run.id}"
        first.setdefault(commit, run.id)
        held = best.get(commit)
        if held is None or run.status == "complete" or held.status != "complete":
            best[commit] = run
    return {commit: best[commit] for commit in sorted(first, key=first.__getitem__)}


def trend(
    store: Store,
    suites: Sequence[str],
    branch: str,
    last: int,
    metrics: Iterable[str] = (),
    kinds: Sequence[str] = KINDS,
) -> Trend:
    per_suite = {suite: window(store, suite, branch, last) for suite in suites}
    order: dict[str, int] = {}
    for chosen in per_suite.values():
        for commit, run in chosen.items():
            order[commit] = min(order.get(commit, run.id), run.id)
    commits = sorted(order, key=order.__getitem__)[-last:]
    position = {commit: i for i, commit in enumerate(commits)}
    runs = {
        (suite, position[commit]): run
        for suite, chosen in per_suite.items()
        for commit, run in chosen.items()
        if commit in position
    }
    ids = [run.id for run in runs.values()]
    values = {
        (a.run_id, a.engine, a.metric, a.kind): a
        for a in store.aggregates(ids)
        if a.scope == OVERALL and a.kind in kinds and (not metrics or a.metric in set(metrics))
    }
    fingerprints = {(e.run_id, e.engine): e.fingerprint_id for e in store.engines(ids)}
    suite_of = {run.id: suite for (suite, _), run in runs.items()}
    names = sorted({(suite_of[run_id], e, m, k) for (run_id, e, m, k) in values})
    shown = tuple(c if not c.startswith("#") else "" for c in commits)
    series = []
    for suite, engine, metric, kind in names:
        cells: list[Cell] = []
        previous: RunRow | None = None
        for i in range(len(commits)):
            at = runs.get((suite, i))
            a = values.get((at.id, engine, metric, kind)) if at is not None else None
            if at is None or a is None:
                carried = cells[-1].value if cells else None
                cells.append(Cell(carried, carried is not None))
                continue
            changes = _changes(previous, at, engine, metric, fingerprints) if previous is not None else ()
            cells.append(Cell(a.value, False, a.low, a.high, at.id, changes))
            previous = at
        series.append(Series(suite, engine, metric, kind, tuple(cells), shown))
    return Trend(branch, shown, runs, tuple(series))


def _changes(
    before: RunRow, after: RunRow, engine: str, metric: str, fingerprints: dict[tuple[int, str], str]
) -> tuple[str, ...]:
    changes = []
    if fingerprints.get((before.id, engine)) != fingerprints.get((after.id, engine)):
        changes.append("fingerprint")
    old, new = before.scorer(metric), after.scorer(metric)
    if old != new:  # its values are not comparable across this cell: another scorer made them
        changes.append(f"{metric} scored by {old or '-'} -> {new or '-'}")
    if before.pytest_ocr != after.pytest_ocr:
        changes.append(f"pytest-ocr {before.pytest_ocr} -> {after.pytest_ocr}")
    for name in sorted(set(before.scorers) | set(after.scorers)):
        if before.scorers.get(name) != after.scorers.get(name):
            changes.append(f"{name} {before.scorers.get(name, '-')} -> {after.scorers.get(name, '-')}")
    return tuple(changes)


def aggregate_regressions(t: Trend) -> list[Found]:
    """Where each aggregate series of the trend got worse and stayed (steps.regressions)."""
    return regressions({s.key(): s.points() for s in t.series if s.metric in METRICS})


def item_regressions(store: Store, t: Trend, metrics: Iterable[str] = ()) -> list[Found]:
    """Where each item's value got worse and stayed, over the runs of the trend's window."""
    wanted = set(metrics)
    series: dict[SeriesKey, list[Point]] = {}
    at = {run.id: (suite, i) for (suite, i), run in t.runs.items()}
    for item in store.items_of(list(at)):
        suite, i = at[item.run_id]
        for metric, value in item.values.items():
            if metric in METRICS and (not wanted or metric in wanted):
                key = SeriesKey(suite, item.engine or "", metric, "item", item.key)
                series.setdefault(key, []).append(Point(i, value, commit=t.commits[i]))
    # An item whose value never moved has no step: most items of a long history, left out
    # before the fit (a fit of 1,000 points takes a tenth of a second).
    moving = {
        key: sorted(points, key=lambda p: p.position)  # read by run id; a commit's rerun comes later
        for key, points in series.items()
        if len({p.value for p in points} - {None}) > 1
    }
    return regressions(dict(sorted(moving.items(), key=lambda kv: (kv[0].suite, kv[0].item, kv[0].metric))))
