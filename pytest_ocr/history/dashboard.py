"""What ``pytest-ocr history html`` shows, read from the store: per suite and engine, each
metric's series over the branch's last commits (trend.py's series: carried cells and
fingerprint/version changes), the commits where it got worse (steps.py's regressions),
the items that moved most, and every run of the window. Rendered by report/history_html.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..run.aggregate import metric_order
from .steps import Found
from .store import AggregateRow, EngineRow, RunRow, Store
from .trend import OVERALL, Series, Trend, aggregate_regressions, item_regressions, trend

MOVING = 10  # items shown per suite and engine, worst step first


@dataclass(frozen=True)
class Chart:
    """One metric of one suite and engine: its macro and micro series and where they got worse."""

    metric: str
    series: tuple[Series, ...]
    steps: tuple[Found, ...]


@dataclass(frozen=True)
class Panel:
    suite: str
    engine: str
    charts: tuple[Chart, ...]
    moving: tuple[Found, ...]  # the items' steps for the worse, largest first (at most MOVING)


@dataclass(frozen=True)
class RunDetail:
    run: RunRow
    engines: tuple[EngineRow, ...]
    aggregates: tuple[AggregateRow, ...]


@dataclass(frozen=True)
class Dashboard:
    trend: Trend
    panels: tuple[Panel, ...]
    runs: tuple[RunDetail, ...]  # the runs measured in the window, oldest first


def dashboard(store: Store, suites: Sequence[str], branch: str, last: int) -> Dashboard:
    t = trend(store, suites, branch, last)
    steps = aggregate_regressions(t)
    moving = item_regressions(store, t)
    panels = []
    for suite, engine in sorted({(s.suite, s.engine) for s in t.series}):
        mine = [s for s in t.series if (s.suite, s.engine) == (suite, engine)]
        charts = []
        for metric in sorted({s.metric for s in mine}, key=metric_order):
            series = tuple(s for s in mine if s.metric == metric)
            found = tuple(f for f in steps if (f.key.suite, f.key.engine, f.key.metric) == (suite, engine, metric))
            charts.append(Chart(metric, series, found))
        items = sorted(
            (f for f in moving if (f.key.suite, f.key.engine) == (suite, engine)),
            key=lambda f: (-abs(f.step.size), f.key.item, f.key.metric),
        )
        panels.append(Panel(suite, engine, tuple(charts), tuple(items[:MOVING])))
    runs = sorted(t.runs.values(), key=lambda r: r.id)
    ids = [r.id for r in runs]
    engines: dict[int, list[EngineRow]] = {i: [] for i in ids}
    aggregates: dict[int, list[AggregateRow]] = {i: [] for i in ids}
    for e in store.engines(ids):
        engines[e.run_id].append(e)
    for a in store.aggregates(ids):
        if a.scope == OVERALL:
            aggregates[a.run_id].append(a)
    details = tuple(RunDetail(r, tuple(engines[r.id]), tuple(aggregates[r.id])) for r in runs)
    return Dashboard(t, tuple(panels), details)
