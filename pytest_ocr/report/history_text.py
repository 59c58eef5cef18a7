"""``pytest-ocr history``'s text: the store's runs, trends, steps, items and flaky items as
plain lines for a terminal, numbers rounded for people (``export`` has them in full).
Names and keys come from the store: the command makes every line visible (visible.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ..history.items import FlakyItem, ItemHistory
from ..history.steps import Found
from ..history.store import AggregateRow, EngineRow, RunRow
from ..history.trend import Cell, Trend
from .columns import fit, ljust, width, wrap
from .numbers import number, signed

BLOCKS = "▁▂▃▄▅▆▇█"
CARRIED = "·"  # a commit where the series was not measured: its earlier value carried
NOTHING = " "  # a commit before the series' first value
MARK = "^"  # under a commit where the engine's fingerprint or a version changed
SHORT = 12  # a commit's characters shown


def short(commit: str | None) -> str:
    return commit[:SHORT] if commit else "(no commit)"


def sparkline(cells: Sequence[Cell]) -> str:
    """One character per commit: the measured value's height between the series' lowest
    and highest, ``·`` where it was carried, a space before its first value."""
    measured = [c.value for c in cells if c.value is not None and not c.carried]
    low, high = (min(measured), max(measured)) if measured else (0.0, 0.0)
    top = len(BLOCKS) - 1
    out = []
    for c in cells:
        if c.value is None:
            out.append(NOTHING)
        elif c.carried:
            out.append(CARRIED)
        else:
            out.append(BLOCKS[round((c.value - low) / (high - low) * top) if high > low else top // 2])
    return "".join(out)


def trend_lines(t: Trend, columns: int | None) -> list[str]:
    if not t.series:
        return [f"no measured runs on branch {t.branch}"]
    headers = ("suite", "engine", "metric")
    labels = [(s.suite, s.engine, f"{s.metric} {s.kind}") for s in t.series]
    widths = [max(width(label[i]) for label in [*labels, headers]) for i in range(3)]
    lasts = [_last(s.cells) for s in t.series]
    last_width = max(width(x) for x in [*lasts, "latest"])
    prefix = sum(widths) + last_width + 2 * 4
    room = len(t.commits) if columns is None else max(8, columns - prefix)
    shown = min(room, len(t.commits))
    first = len(t.commits) - shown
    head = f"branch {t.branch}: {len(t.commits)} commits, {short(t.commits[0])} .. {short(t.commits[-1])}"
    lines = [
        *wrap(head + (f" (the last {shown} drawn)" if shown < len(t.commits) else ""), columns),
        "  ".join(ljust(h, w) for h, w in zip(headers, widths, strict=True))
        + "  "
        + ljust("latest", last_width)
        + "  oldest -> newest",
    ]
    for s, label, last in zip(t.series, labels, lasts, strict=True):
        cells = s.cells[first:]
        row = "  ".join(ljust(x, w) for x, w in zip(label, widths, strict=True))
        lines.append(f"{row}  {ljust(last, last_width)}  {sparkline(cells)}")
        if any(c.changes for c in cells):
            marks = "".join(MARK if c.changes else " " for c in cells)
            lines.append(" " * (prefix - 2) + "  " + marks)
    legend = _changes(t, first)
    if any(c.carried for s in t.series for c in s.cells):
        legend.append(
            f"{CARRIED} carried: the suite or engine did not run at that commit (an earlier value, not measured)"
        )
    return lines + fit(legend, columns)


def _last(cells: Sequence[Cell]) -> str:
    last = cells[-1]
    return number(last.value) + (" carried" if last.carried else "")


def _changes(t: Trend, first: int) -> list[str]:
    said: dict[tuple[str, str, int], tuple[str, ...]] = {}
    for s in t.series:
        for i, c in enumerate(s.cells[first:], start=first):
            if c.changes:
                said.setdefault((s.suite, s.engine, i), c.changes)
    return [
        f"{MARK} {suite} {engine} at commit {short(t.commits[i])}: {', '.join(changes)} changed"
        for (suite, engine, i), changes in sorted(said.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1]))
    ]


def regression_lines(found: Sequence[Found], commits: Sequence[str]) -> list[str]:
    if not found:
        return [f"no regression over {len(commits)} commits"]
    lines = []
    for f in found:
        k, s = f.key, f.step
        what = f"{k.suite} {k.engine} {k.metric} {k.kind}" if not k.item else f"{k.item} {k.metric}"
        where = f"commit {short(s.commit)}"
        if s.earliest != s.position:
            where = f"between commit {short(commits[s.earliest])} and {where} (not measured in between)"
        lines.append(
            f"{what}: worse at {where}: {number(s.before)} -> {number(s.after)}, "
            f"step {signed(s.size)} [{signed(s.low)}, {signed(s.high)}] ({s.confidence:.0%}; "
            f"{s.n_before} commits before, {s.n_after} after)"
        )
    return lines


def item_lines(h: ItemHistory, only: Sequence[str] = ()) -> list[str]:
    if not h.points:
        return [f"no run of suite {h.suite} has item {h.key}"]
    metrics = sorted({m for p in h.points for m in p.point.item.values if not only or m in only})
    lines = [f"{h.key} in suite {h.suite}: {len(h.points)} runs"]

    def changed(names: tuple[str, ...]) -> str:
        return ", ".join(n for n in names if n in ("input", "output", "outcome") or n in metrics)

    header = ["commit", "run", "outcome", "output", *metrics, "changed"]
    rows = []
    for p in h.points:
        run, item = p.point.run, p.point.item
        rows.append(
            [
                short(run.commit),
                f"{run.id}" + (f" (attempt {run.attempt})" if run.attempt > 1 else ""),
                item.outcome,
                item.output_hash or "-",
                *(number(item.values.get(m)) for m in metrics),
                changed(p.changed),
            ]
        )
    lines += _table(header, rows)
    changes = [p for p in h.changes() if changed(p.changed)]
    lines += [
        f"changed at commit {short(p.point.run.commit)} (run {p.point.run.id}): {changed(p.changed)}" for p in changes
    ] or ["never changed"]
    return lines


def flaky_lines(found: Sequence[FlakyItem], runs: int) -> list[str]:
    if not found:
        return [f"no flaky item over {runs} runs"]
    same = "engine fingerprint and inputs the same"
    lines = [f"{len(found)} flaky item(s) over {runs} runs (output or outcome changed, {same})"]
    for f in found:
        lines.append(f"{f.key}: {len(f.flips)} change(s) in {f.compared} comparable pairs of runs")
        for flip in f.flips:
            outcome = f" ({flip.outcomes[0]} -> {flip.outcomes[1]})" if "outcome" in flip.changed else ""
            lines.append(
                f"  run {flip.before_run} ({short(flip.before_commit)}) -> run {flip.after_run} "
                f"({short(flip.after_commit)}): {', '.join(flip.changed)}{outcome}"
            )
    return lines


def runs_lines(runs: Sequence[RunRow]) -> list[str]:
    if not runs:
        return ["no runs"]
    rows = [
        [str(r.id), r.suite, short(r.commit), r.branch or "-", str(r.attempt), r.status, _counts(r), r.recorded_at[:19]]
        for r in runs
    ]
    return _table(["run", "suite", "commit", "branch", "attempt", "status", "items", "recorded"], rows)


def _counts(run: RunRow) -> str:
    counts = run.counts
    return " ".join(f"{n} {counts[n]}" for n in sorted(counts) if counts[n]) or "-"


def show_lines(run: RunRow, engines: Sequence[EngineRow], aggregates: Sequence[AggregateRow]) -> list[str]:
    lines = [
        f"run {run.id} of suite {run.suite}: {run.status}, attempt {run.attempt}",
        f"commit {run.commit or '-'} on {run.branch or '-'}, parents {' '.join(run.parents) or '-'}, "
        f"committed {run.commit_time or '-'}",
        f"ran {run.started_at} .. {run.finished_at} ({run.duration_s:.1f} s), recorded {run.recorded_at}",
        f"items: {_counts(run)}",
        f"pytest-ocr {run.pytest_ocr}; scorers: {', '.join(f'{k} {v}' for k, v in sorted(run.scorers.items())) or '-'}",
    ]
    if run.ci or run.run_url:
        lines.append(f"CI: {run.ci or '-'} job {run.job or '-'} {run.run_url or ''}".rstrip())
    lines += [f"engine {e.engine}: fingerprint {e.fingerprint_id}" for e in engines]
    rows = [[a.engine, a.metric, a.kind, number(a.value), _interval(a), str(a.n)] for a in aggregates if a.scope == ""]
    return lines + _table(["engine", "metric", "kind", "value", "95% interval", "n"], rows)


def _interval(a: AggregateRow) -> str:
    return "-" if a.low is None or a.high is None else f"[{number(a.low)}, {number(a.high)}]"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(width(x) for x in column) for column in zip(header, *rows, strict=True)]
    return ["  ".join(ljust(x, w) for x, w in zip(row, widths, strict=True)).rstrip() for row in [header, *rows]]
