"""The run against its baseline: how each item moved, and the overview's section per engine."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ...run.comparison import Comparison
from ...run.result import CaseResult
from ...scoring.tolerance import Delta
from ..numbers import number, signed
from ..reasons import noise_lines
from .markup import case_link, esc, filter_link, plural

LISTED_ITEMS = 20  # per engine and kind in the overview's baseline section; the case list has them all


def baseline_change(result: CaseResult) -> str | None:
    """How the item moved against the baseline: ``regressed`` (the one definition, see
    scoring/tolerance.py), ``improved`` (a compared metric got better and none worse),
    ``new`` (the baseline has no record of it), or None (unchanged, mixed, or no baseline)."""
    comparison = result.baseline
    if comparison is None:
        return None
    if comparison.status == "new":
        return "new"
    if comparison.regressed:
        return "regressed"
    verdicts = {d.verdict for d in comparison.deltas}
    return "improved" if "better" in verdicts and "worse" not in verdicts else None


def _delta_text(delta: Delta) -> str:
    how = delta.how()
    return (
        f"{esc(delta.metric)} {number(delta.old)} → {number(delta.new)} ({signed(delta.change)}; "
        f"tolerance {esc(delta.tolerance)}{'; ' + esc(how) if how else ''})"
    )


def _item_list(kind: str, results: list[CaseResult], shown: Callable[[CaseResult], str], engine: str) -> str:
    if not results:
        return ""
    items = "".join(f"<li>{case_link(r, kind)}{shown(r)}</li>" for r in results[:LISTED_ITEMS])
    more = len(results) - LISTED_ITEMS
    everything = filter_link(f"all {len(results)} {kind} items", engine=engine, outcome=kind)
    rest = f'<p class="note">… and {more} more: {everything}</p>' if more > 0 else ""
    return f'<h4>{kind.capitalize()} ({len(results)})</h4><ol class="{kind}">{items}</ol>{rest}'


def _regressed_note(r: CaseResult) -> str:
    deltas = [d for d in (r.baseline.deltas if r.baseline else ()) if d.regressed]
    return f'<span class="why">: {"; ".join(_delta_text(d) for d in deltas)}</span>'


def _improved_note(r: CaseResult) -> str:
    deltas = [d for d in (r.baseline.deltas if r.baseline else ()) if d.verdict == "better"]
    return f'<span class="why">: {"; ".join(_delta_text(d) for d in deltas)}</span>'


def _new_note(r: CaseResult) -> str:
    cer = r.metrics.get("cer")
    return f'<span class="why">: {esc(r.outcome)}{"" if cer is None else f", cer {number(cer)}"}</span>'


def _most_improved(results: Iterable[CaseResult]) -> list[CaseResult]:
    def gain(r: CaseResult) -> float:
        return max((-d.worse_by for d in (r.baseline.deltas if r.baseline else ())), default=0.0)

    return sorted(results, key=lambda r: (-gain(r), r.key))


def _failed_first(results: Iterable[CaseResult]) -> list[CaseResult]:
    return sorted(results, key=lambda r: (r.outcome == "passed", r.key))


def baseline_section(view: Comparison | None, results: list[CaseResult]) -> str:
    """The run against its baseline, per engine: counts (each a link to the filtered
    case list), how the compared metrics' means moved, a changed configuration, and the
    regressed (worst first), improved (most first) and new items, each linking to its case."""
    if view is None:
        return ""
    changes = {r.key: baseline_change(r) for r in results}
    parts = [
        "<h2>Baseline</h2>",
        f'<p class="baseline-match">Compared with <code>{esc(view.path)}</code> ({plural(view.records, "record")}): '
        f"{view.matched} of {view.current} measured items found their record.</p>",
        *(f'<p class="warning">{esc(w)}</p>' for w in view.warnings()),
        *(f'<p class="note noise">{esc(line)}</p>' for line in noise_lines(view.families)),
    ]
    per_engine: dict[str, dict[str, list[CaseResult]]] = {}
    rows = []
    for e in view.engines:
        mine = [r for r in results if r.engine == e.engine]
        lists = {
            "regressed": e.regressed,  # the view's order: worst first
            "improved": _most_improved(r for r in mine if changes[r.key] == "improved"),
            "new": _failed_first(r for r in mine if changes[r.key] == "new"),
        }
        per_engine[e.engine] = lists
        counts = [str(e.compared)] + [
            filter_link(str(len(lists[k])), engine=e.engine, outcome=k) if lists[k] else "0"
            for k in ("new", "regressed", "improved")
        ]
        cells = "".join(f'<td class="num">{c}</td>' for c in counts)
        rows.append(f'<tr><th scope="row">{esc(e.engine)}</th>{cells}</tr>')
    parts.append(
        '<table class="baseline-engines"><thead><tr><th scope="col">engine</th><th scope="col">compared</th>'
        '<th scope="col">new</th><th scope="col">regressed</th><th scope="col">improved</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
        '<p class="note">regressed: a metric the item compares (its thresholds, its <code>regression:</code> '
        "tolerances) got worse than its tolerance; improved: one got better and none worse; new: the baseline "
        "has no record of the item</p>"
    )
    for e in view.engines:
        lists = per_engine[e.engine]
        section = [f'<section class="baseline-engine" data-engine="{esc(e.engine)}"><h3>{esc(e.engine)}</h3>']
        if e.config_changes:
            section.append(
                '<p class="warning">The baseline was recorded with another configuration of this engine: '
                + "; ".join(f"<code>{esc(c)}</code>" for c in e.config_changes)
                + "</p>"
            )
        if e.moves:
            moves = "".join(
                f'<tr class="{p.direction}"><td>{esc(m.metric)} {p.kind}</td><td class="num">{p.n}</td>'
                f'<td class="num">{number(p.old)}</td><td class="num">{number(p.new)}</td>'
                f'<td class="num">{signed(p.change)}</td>'
                f'<td class="num">{signed(p.low)} to {signed(p.high)}</td>'
                f'<td class="num">{p.p_value:.3g}</td><td class="num">{number(p.detectable)}</td>'
                f"<td>{p.direction}</td></tr>"
                if p is not None
                else f'<tr class="{m.verdict}"><td>{esc(m.metric)}</td><td class="num">{m.n}</td>'
                f'<td class="num">{number(m.old)}</td><td class="num">{number(m.new)}</td>'
                f'<td class="num">{signed(m.new - m.old)}</td><td class="num">-</td><td class="num">-</td>'
                f'<td class="num">-</td><td>{m.verdict}</td></tr>'
                for m in e.moves
                for p in (m.paired or (None,))
            )
            level = next((p.level for m in e.moves for p in m.paired), "95%")
            section.append(
                '<table class="moves"><thead><tr><th>metric</th><th class="num">items</th>'
                '<th class="num">baseline</th><th class="num">now</th><th class="num">change</th>'
                f'<th class="num">{level} interval</th><th class="num">p</th>'
                '<th class="num" title="the smallest worsening these items can tell from noise">'
                "told from noise above</th>"
                f"<th>verdict</th></tr></thead><tbody>{moves}</tbody></table>"
            )
        section.append(_item_list("regressed", lists["regressed"], _regressed_note, e.engine))
        section.append(_item_list("improved", lists["improved"], _improved_note, e.engine))
        section.append(_item_list("new", lists["new"], _new_note, e.engine))
        section.append("</section>")
        parts.append("".join(section))
    return "".join(parts)
