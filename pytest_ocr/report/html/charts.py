"""The overview's charts, inline SVG: CER per bin, engine against engine per case, a
metric per tag and group."""

from __future__ import annotations

from collections import defaultdict

from ...run.aggregate import Summary, metric_order
from ...run.result import CaseResult
from ..numbers import number
from .markup import colour, esc, finite, plural

CER_BINS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)  # upper edges; CER 0 and CER above 1 get bins of their own
MAX_SCATTER_PAIRS = 3
MAX_GROUPS = 40


def _legend(engines: list[str], x: float, y: float) -> str:
    parts = []
    for i, engine in enumerate(engines):
        parts.append(
            f'<rect x="{x}" y="{y + i * 16}" width="10" height="10" fill="{colour(i)}"/>'
            f'<text x="{x + 14}" y="{y + i * 16 + 9}">{esc(engine)}</text>'
        )
    return "".join(parts)


def _cer_bin(value: float) -> int:
    if value == 0:
        return 0
    for i, edge in enumerate(CER_BINS):
        if value <= edge:
            return i + 1
    return len(CER_BINS) + 1


def _bin_labels() -> list[str]:
    labels, low = ["0"], 0.0
    for edge in CER_BINS:
        labels.append(f"≤{edge:g}" if low == 0 else f"{low:g}–{edge:g}")
        low = edge
    return labels + [f">{CER_BINS[-1]:g}"]


def cer_histogram(results: list[CaseResult], engines: list[str]) -> str:
    """Cases per CER bin, one bar per engine in each bin."""
    counts = {e: [0] * (len(CER_BINS) + 2) for e in engines}
    for r in results:
        value = finite(r.metrics.get("cer"))
        if value is not None and r.engine in counts:
            counts[r.engine][_cer_bin(value)] += 1
    top = max((n for row in counts.values() for n in row), default=0)
    if not top:
        return '<p class="note">No item has a CER.</p>'
    labels = _bin_labels()
    width, height, left, bottom, top_pad = 760, 260, 44, 40, 12
    plot_w = width - left - 140
    plot_h = height - bottom - top_pad
    slot = plot_w / len(labels)
    bar = (slot - 6) / len(engines)
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img">',
        "<title>CER distribution: cases per CER range and engine</title>",
    ]
    for k in range(5):
        y = top_pad + plot_h * k / 4
        tick = top * (4 - k) / 4
        parts.append(f'<line class="grid" x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}"/>')
        if tick == int(tick):  # counts: whole ticks only
            parts.append(f'<text class="tick" x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{int(tick)}</text>')
    for b, label in enumerate(labels):
        x0 = left + b * slot + 3
        for i, engine in enumerate(engines):
            n = counts[engine][b]
            h = plot_h * n / top
            parts.append(
                f'<rect x="{x0 + i * bar:.1f}" y="{top_pad + plot_h - h:.1f}" width="{bar:.1f}" '
                f'height="{h:.1f}" fill="{colour(i)}"><title>{esc(engine)}: {plural(n, "case")} with CER '
                f"{esc(label)}</title></rect>"
            )
        parts.append(
            f'<text class="tick" x="{x0 + (slot - 6) / 2:.1f}" y="{height - bottom + 14}" '
            f'text-anchor="middle">{esc(label)}</text>'
        )
    parts.append(f'<text class="axis" x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">CER</text>')
    parts.append(_legend(engines, left + plot_w + 16, top_pad))
    parts.append("</svg>")
    return "".join(parts)


def _nice_top(value: float) -> float:
    for top in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0):
        if value <= top:
            return top
    return 1.0


def cer_scatter(results: list[CaseResult], a: str, b: str) -> str:
    """Per case, engine a's CER against engine b's; the diagonal is a tie."""
    by_case: dict[tuple, dict[str, float]] = defaultdict(dict)
    for r in results:
        value = finite(r.metrics.get("cer"))
        if value is not None and r.engine in (a, b):
            by_case[r.file, r.case][r.engine] = value
    points = [(key, v[a], v[b]) for key, v in sorted(by_case.items()) if a in v and b in v]
    if not points:
        return ""
    top = _nice_top(max(max(x, y) for _, x, y in points))
    size, pad = 300, 44
    plot = size - pad - 12

    def px(value: float) -> float:
        return pad + plot * min(value, top) / top

    def py(value: float) -> float:
        return 12 + plot - plot * min(value, top) / top

    clipped = sum(x > top or y > top for _, x, y in points)
    parts = [
        f'<figure class="scatter"><svg class="chart" viewBox="0 0 {size} {size}" width="{size}" '
        f'height="{size}" role="img"><title>CER per case: {esc(a)} (x) against {esc(b)} (y)</title>',
        f'<rect class="frame" x="{pad}" y="12" width="{plot}" height="{plot}"/>',
        f'<line class="diagonal" x1="{pad}" y1="{12 + plot}" x2="{pad + plot}" y2="12"/>',
        f'<text class="tick" x="{pad}" y="{size - 18}" text-anchor="middle">0</text>',
        f'<text class="tick" x="{pad + plot}" y="{size - 18}" text-anchor="middle">{top:g}</text>',
        f'<text class="tick" x="{pad - 4}" y="{12 + plot}" text-anchor="end">0</text>',
        f'<text class="tick" x="{pad - 4}" y="20" text-anchor="end">{top:g}</text>',
        f'<text class="axis" x="{pad + plot / 2}" y="{size - 4}" text-anchor="middle">CER {esc(a)}</text>',
        f'<text class="axis" transform="translate(12 {12 + plot / 2}) rotate(-90)" '
        f'text-anchor="middle">CER {esc(b)}</text>',
    ]
    for (file, case), x, y in points:
        kind = "better-a" if x < y else "better-b" if y < x else "tie"
        parts.append(
            f'<circle class="{kind}" cx="{px(x):.1f}" cy="{py(y):.1f}" r="3"><title>{esc(file)} '
            f"{esc(case)}: {number(x)} vs {number(y)}</title></circle>"
        )
    parts.append("</svg>")
    note = f"{plural(len(points), 'case')} run on both; below the diagonal {esc(b)} does better"
    if clipped:
        note += f"; {clipped} with a CER above {top:g} drawn on the edge"
    parts.append(f"<figcaption>{note}.</figcaption></figure>")
    return "".join(parts)


def group_bars(summaries: dict[str, Summary], engines: list[str], metric: str) -> str:
    """The metric's macro mean per tag and group, one bar per engine (horizontal)."""
    keys = sorted({k for e in engines for k in summaries[e].groups})
    if not keys:
        return '<p class="note">No tags or groups.</p>'
    shown, more = keys[:MAX_GROUPS], len(keys) - MAX_GROUPS

    def value(engine: str, key: str) -> float | None:
        group = summaries[engine].groups.get(key)
        aggregate = None if group is None else group.metrics.get(metric)
        return None if aggregate is None else finite(aggregate.macro)

    values = [value(e, k) for k in shown for e in engines]
    top = max([v for v in values if v is not None] + [0.0]) or 1.0
    label_w, bar_h, width = 180, 12, 640
    plot_w = width - label_w - 60
    row_h = bar_h * len(engines) + 8
    height = row_h * len(shown) + 30
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img">',
        f"<title>{esc(metric)} macro mean per tag and group</title>",
    ]
    for row, key in enumerate(shown):
        y0 = 4 + row * row_h
        parts.append(
            f'<text class="tick" x="{label_w - 6}" y="{y0 + row_h / 2 + 2:.1f}" '
            f'text-anchor="end">{esc(key[:32])}</text>'
        )
        for i, engine in enumerate(engines):
            v = value(engine, key)
            w = 0 if v is None else plot_w * v / top
            y = y0 + i * bar_h
            parts.append(
                f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{colour(i)}">'
                f"<title>{esc(engine)} {esc(key)}: {esc(metric)} {number(v)}</title></rect>"
                f'<text class="tick" x="{label_w + w + 4:.1f}" y="{y + bar_h - 3}">{number(v)}</text>'
            )
    parts.append(
        f'<text class="axis" x="{label_w + plot_w / 2}" y="{height - 6}" text-anchor="middle">'
        f"{esc(metric)} macro (0 to {top:.4g})</text>"
    )
    parts.append("</svg>")
    if more > 0:
        parts.append(f'<p class="note">… and {more} more tags and groups (the JSON report has all).</p>')
    return "".join(parts)


def charts(results: list[CaseResult], summaries: dict[str, Summary], engines: list[str]) -> str:
    parts = ["<h3>CER distribution</h3>", cer_histogram(results, engines)]
    pairs = [(a, b) for i, a in enumerate(engines) for b in engines[i + 1 :]]
    scatters = [s for s in (cer_scatter(results, a, b) for a, b in pairs[:MAX_SCATTER_PAIRS]) if s]
    if scatters:
        parts += ['<h3>Engine against engine, per case</h3><div class="scatters">', *scatters, "</div>"]
        if len(pairs) > MAX_SCATTER_PAIRS:
            parts.append(f'<p class="note">First {MAX_SCATTER_PAIRS} of {len(pairs)} engine pairs.</p>')
    metrics = {m for e in engines for m in summaries[e].metrics}
    metric = "cer" if "cer" in metrics else min(metrics, key=metric_order, default=None)
    if metric:
        parts += [f"<h3>{esc(metric)} by tag and group</h3>", group_bars(summaries, engines, metric)]
    return '<section class="charts">' + "".join(parts) + "</section>"
