"""Markdown for pull-request comments and GitHub's job summary ($GITHUB_STEP_SUMMARY).

Text that comes from engine output, case files or reports (ids, engine names, error
messages, warnings, configuration values) is untrusted: ``escape`` makes it visible
(visible.py: control and bidi characters, line breaks and tabs as escapes such as
``\\x1b``, ``\\u202e``, ``\\n``), then inert Markdown and HTML, one line, of bounded
length. Lists are capped and say how many were left out, and the whole text is cut
below GitHub's 1 MiB step-summary limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from ..metrics.registry import OMNIDOCBENCH_METRICS
from ..run.comparison import AggregateDelta, CaseComparison, Comparison, EngineComparison, MetricDelta, Violation
from ..run.identity import relative
from ..run.noise import Family
from ..run.paired import Paired
from ..run.record import Gating, RunRecord
from ..run.result import CaseResult, Outcome
from ..visible import visible
from .numbers import (
    STABILITY_ROWS,
    fact_rows,
    number,
    omnidocbench_note,
    omnidocbench_rows,
    signed,
    stability_cell,
)
from .paired_text import describe, verdict, violation_message
from .reasons import delta_text, gate_text, item_reasons, noise_lines

_WORD = re.compile(r"[A-Za-z0-9_]+")
LIST_LIMIT = 20  # items shown per list
CELL_CHARS = 200  # characters of untrusted text per cell or list item
GATE_CHARS = 4000  # a gate's explanation, whose untrusted parts (engine names, item keys) are bounded each
Link = Callable[[CaseComparison], str | None]
MAX_BYTES = 512 * 1024  # GitHub refuses step summaries over 1 MiB; leave room for other steps

# Backslash escapes stop Markdown syntax (emphasis, links, code, tables, strikethrough,
# math, headings); entities stop HTML. A zero-width space after @ keeps OCR text from
# mentioning people in a PR comment. One translate pass, so no escape is escaped again.
_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "|": "\\|",
        "~": "\\~",
        "$": "\\$",
        "#": "\\#",
        "!": "\\!",
        "@": "@\u200b",
    }
)


def escape(text: object, limit: int = CELL_CHARS) -> str:
    """Untrusted text as inert, single-line Markdown of at most ``limit`` characters
    (before escaping; a cut is marked with …): hidden characters shown as their escapes
    (the backslash itself escaped for Markdown, so ``\\x1b`` reads as written)."""
    text = str(text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return visible(text).translate(_ESCAPES)


def word(name: str) -> str:
    """A metric's or kind's name: as it is when it is a plain word (every name pytest-ocr gives
    is), else escaped (a name read back from a store or report another program wrote)."""
    return name if _WORD.fullmatch(name) else escape(name)


def delta_cell(d: MetricDelta) -> str:
    """``▲ +0.0150 worse``: the arrow is the value's move, the word its meaning for this metric."""
    if d.change is None:
        return "-"
    if d.direction == "same":
        return "same"
    arrow = "▲" if d.change > 0 else "▼"
    return f"{arrow} {signed(d.change)} {d.direction}"


def violation_text(v: Violation) -> str:
    """A broken rule with its numbers rounded (the comparison's JSON has them in full)."""
    return f"{v.subject}: {delta_text(v.delta)}" if v.delta is not None and v.subject else violation_message(v)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def _capped(items: list, limit: int) -> tuple[list, str | None]:
    """The first ``limit`` items, and a line saying how many were left out (or None)."""
    if len(items) <= limit:
        return items, None
    return items[:limit], f"… and {len(items) - limit} more"


def _bounded(lines: list[str]) -> str:
    """The lines joined, cut at a line boundary below MAX_BYTES with a note saying so."""
    return bounded(
        lines, MAX_BYTES, lambda line: len(line.encode("utf-8")), f"{MAX_BYTES // 1024} KiB", "a step summary to 1 MiB"
    )


def bounded(lines: list[str], most: int, size: Callable[[str], int], at: str, limit: str) -> str:
    """The lines joined, cut at a line boundary so that their ``size`` stays below ``most``,
    with a note saying how many lines were left out and why (GitHub limits ``limit``)."""
    text = "\n".join(lines) + "\n"
    if size(text) <= most:
        return text
    kept, total = [], 0
    for line in lines:
        total += size(line) + 1
        if total > most - 200:
            break
        kept.append(line)
    kept += ["", f"*Cut at {at}: {len(lines) - len(kept)} more lines left out (GitHub limits {limit}).*"]
    return "\n".join(kept) + "\n"


# -- comparison -----------------------------------------------------------------------------


def _engine_delta_table(e: EngineComparison) -> list[str]:
    rows = []
    for name in ("cases", "passed", "failed", "errors"):
        old, new = e.base.get(name, 0), e.head.get(name, 0)
        rows.append([name, str(old), str(new), f"{new - old:+d}" if new != old else "same"])
    for d in e.metrics:
        rows.append(
            [
                f"{word(d.metric)} {word(d.kind)}",
                number(d.old),
                number(d.new),
                delta_cell(d),
                *paired_cells(d.paired),
                unpaired(d) if d.unpaired_differs else "the same",
            ]
        )
    if e.base_stability or e.head_stability:
        rows += [
            [label, *(stability_cell(getattr(s, key, None)) for s in (e.base_stability, e.head_stability))]
            for label, key in STABILITY_ROWS
        ]
    for row in rows:
        row += [""] * (8 - len(row))
    header = ["metric", "base", "head", "delta", "paired change [interval]", "p", "told from noise above"]
    return _table([*header, "all items (unpaired)"], rows)


def unpaired(d: AggregateDelta, arrow: str = "→") -> str:
    """An engine's averages over all of each run's items, new and removed ones included."""
    return f"{number(d.all_old)} ({d.all_old_n}) {arrow} {number(d.all_new)} ({d.all_new_n})"


def _move_cell(direction: str, change: float) -> str:
    return "same" if direction == "same" else f"{signed(change)} {direction}"


def paired_cells(p: Paired | None) -> list[str]:
    """The paired statistics of an aggregate as table cells: change and interval, p-value,
    and the smallest worsening the items can tell from noise."""
    if p is None:
        return ["-", "-", "-"]
    return [
        f"{signed(p.change)} [{signed(p.low)}, {signed(p.high)}] ({p.level}, {p.n} items)",
        f"{p.p_value:.3g}",
        number(p.detectable),
    ]


def _case_changes(case: CaseComparison) -> str:
    tested = [d for d in case.compared if d.noise is not None and d.beyond > 0]
    if tested:  # with repeats: how the noise entered each verdict
        parts = [escape(delta_text(d), 2 * CELL_CHARS) for d in tested]
    else:
        worse = [d for d in case.deltas if d.direction == "worse"]
        parts = [f"{word(d.metric)} {number(d.old)} → {number(d.new)} ({delta_cell(d)})" for d in worse]
    parts += [f"check {escape(f.id)} ({escape(f.type)}) lost" for f in case.lost_facts]
    parts += ["unstable: its repeats differ"] if case.unstable else []
    return "; ".join(parts) or "-"


def _regressed_table(comparison: Comparison, limit: int, link: Link | None = None) -> list[str]:
    regressed = comparison.regressed_cases()
    if not regressed:
        return []
    shown, more = _capped(regressed, limit)
    rows = [
        [
            _linked(escape(c.key), link(c) if link else None),
            escape(f"{c.file}:{c.line}"),
            _case_changes(c),
            escape(c.new_outcome if c.old_outcome == c.new_outcome else f"{c.old_outcome} → {c.new_outcome}"),
            "yes" if c.violated else "",
        ]
        for c in shown
    ]
    lines = [
        f"**Regressed items ({len(regressed)})**: worse than a tolerance the item compares, or breaking a rule",
        "",
    ]
    lines += _table(["item", "where", "got worse", "outcome", "rule broken"], rows)
    return lines + ([more] if more else []) + [""]


def _linked(text: str, url: str | None) -> str:
    return f"[{text}](<{url}>)" if url else text


def _comparison_sections(comparison: Comparison, limit: int, heading: str, link: Link | None = None) -> list[str]:
    lines: list[str] = [f"**Warning:** {escape(w, 2 * CELL_CHARS)}" for w in comparison.warnings()]
    lines += [""] if lines else []
    if comparison.violations:
        lines += [f"**Rule violations ({len(comparison.violations)})**", ""]
        shown, more = _capped(comparison.violations, limit)
        lines += [f"- ❌ {escape(v.rule)}: {escape(violation_text(v), 2 * CELL_CHARS)}" for v in shown]
        lines += ([more] if more else []) + [""]
    lines += _noise_list(comparison.families)
    if comparison.decisions:
        lines += ["**Aggregate rules with a confidence** (judged on the items both runs measured)", ""]
        for d in comparison.decisions:
            mark = "❌" if d.violated else "✅"
            lines.append(
                f"- {mark} {escape(d.rule)} on {escape(d.engine)}: {escape(describe(d.paired))}: "
                f"{escape(verdict(d.paired, d.tolerance))}"
            )
        lines += [""]
    for e in comparison.summarised:
        lines += [f"{heading} {escape(e.engine)}", ""]
        if e.unchanged:
            n = e.head.get("cases", 0)
            lines += [f"No change: {n} item{'s' if n != 1 else ''}, the same counts and aggregates.", ""]
        else:
            lines += _engine_delta_table(e) + [""]
    for label, names in (
        ("New engines", comparison.new_engines),
        ("Engines no longer run", comparison.removed_engines),
    ):
        if names:
            lines += [
                f"**{label}:** "
                + ", ".join(escape(n) for n in names[:limit])
                + (f" … and {len(names) - limit} more" if len(names) > limit else ""),
                "",
            ]
    lines += _regressed_table(comparison, limit, link)
    if comparison.outcome_changes:
        lines += [f"**Outcome changed ({len(comparison.outcome_changes)})**", ""]
        shown, more = _capped(comparison.outcome_changes, limit)
        for o in shown:
            reason = f": {escape(o.error)}" if o.error else ""
            lines.append(f"- {escape(o.key)}: {escape(o.old)} → {escape(o.new)}{reason}")
        lines += ([more] if more else []) + [""]
    lines += [
        f"**Items:** {len(comparison.new_items)} new, {len(comparison.removed_items)} removed "
        f"(not compared), {len(comparison.cases)} in both.",
        "",
    ]
    for label, ids in (("New", comparison.new_items), ("Removed", comparison.removed_items)):
        if ids:
            shown, more = _capped(ids, limit)
            lines += [f"{label}: " + ", ".join(escape(i) for i in shown) + (f" {more}" if more else ""), ""]
    if comparison.reconfigured:
        lines += ["**Engine configuration changed** (results may differ for that reason alone)", ""]
        engines, more_engines = _capped(comparison.reconfigured, limit)
        for f in engines:
            lines.append(f"- {escape(f.engine)}")
            shown, more = _capped(f.config_changes, limit)
            lines += [f"  - {escape(change)}" for change in shown] + ([f"  - {more}"] if more else [])
        lines += ([f"- {more_engines}"] if more_engines else []) + [""]
    for note in comparison.notes:
        lines += [f"*Note: {escape(note)}*", ""]
    return lines


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _verdict(comparison: Comparison) -> str:
    """What the comparison decided, and the items that regressed beyond their own
    tolerances without breaking a rule: a verdict never reads "nothing" while items regressed."""
    beyond = sum(c.regressed and not c.violated for c in comparison.cases)
    them = "it" if beyond == 1 else "they"
    regressed = (
        f"{_plural(beyond, 'item')} regressed beyond the tolerances {them} compare{'s' if beyond == 1 else ''} "
        f"(thresholds and regression: tolerances, as HEAD records them)"
    )
    if not comparison.rules:
        if beyond:
            return f"**{regressed}.** No rules given (--fail-on), so this comparison fails on nothing."
        return "No rules given (--fail-on) and no item regressed: changes are shown, nothing is gated."
    rules = ", ".join(escape(r) for r in comparison.rules)
    if comparison.failed:
        also = f"; besides, {regressed}" if beyond else ""
        return f"**FAILED**: {_plural(len(comparison.violations), 'rule violation')} (rules: {rules}){also}."
    if beyond:
        return f"No rule violated (rules: {rules}), but **{regressed}**."
    return f"**No regression**: no rule violated (rules: {rules})."


def comparison_markdown(comparison: Comparison, limit: int = LIST_LIMIT) -> str:
    """A PR-comment-ready section: verdict, rule violations, per-engine deltas, regressed
    items, outcome changes, new and removed items, changed engine configurations."""
    return _bounded(["### OCR comparison: base → head", "", *comparison_lines(comparison, limit)])


def comparison_lines(comparison: Comparison, limit: int = LIST_LIMIT, link: Link | None = None) -> list[str]:
    """The comparison's verdict and sections, as ``comparison_markdown`` shows them under its
    heading (a pull-request comment shows them under its own); ``link`` gives a regressed
    item's address (its case in the HTML report), or None."""
    return [_verdict(comparison), "", *_comparison_sections(comparison, limit, "####", link)]


# -- one run ------------------------------------------------------------------------------


def _engines_table(record: RunRecord) -> list[str]:
    summaries = record.summaries
    engines = list(summaries)
    counted = ["cases", "passed", "failed", "errors"] + [
        c for c in ("filtered", "skipped") if any(getattr(s, c) for s in summaries.values())
    ]
    rows = [[name] + [str(getattr(summaries[e], name)) for e in engines] for name in counted]
    for metric in record.shown_metrics():
        if metric in OMNIDOCBENCH_METRICS:  # in OmniDocBench's terms, below
            continue
        for kind in ("macro", "micro"):
            rows.append(
                [f"{metric} {kind}"] + [number(getattr(summaries[e].metrics.get(metric), kind, None)) for e in engines]
            )
    if any(s.stability for s in summaries.values()):
        rows += [
            [label, *(stability_cell(getattr(summaries[e].stability, key, None)) for e in engines)]
            for label, key in STABILITY_ROWS
        ]
    facts = fact_rows([asdict(f) if (f := summaries[e].facts) else None for e in engines])
    rows += [[escape(label), *cells] for label, cells in facts]
    omnidocbench = omnidocbench_rows([summaries[e] for e in engines])
    rows += [[escape(label), *cells] for label, cells in omnidocbench]
    return _table(["engine"] + [escape(e) for e in engines], rows)


def _omnidocbench_tables(record: RunRecord) -> list[str]:
    """OmniDocBench's grouped results (run/omnidocbench.py), engines side by side, folded: per
    element, by page attribute (the mean over pages) and by block attribute (the mean over
    samples, with their count), in OmniDocBench's names."""
    tables = {e: s.omnidocbench for e, s in record.summaries.items() if s.omnidocbench}
    if not tables:
        return []
    lines = ["<details><summary>OmniDocBench by page attribute and by block attribute</summary>", ""]
    for element in dict.fromkeys(e for t in tables.values() for e in t):
        for part, title in (("page", "by page attribute (mean over pages)"), ("group", "by block attribute")):
            found = {e: t.get(element, {}).get(part, {}) for e, t in tables.items()}
            metrics = list(dict.fromkeys(m for f in found.values() for m in f if m != "sample_count"))
            labels = sorted({label for f in found.values() for m in metrics for label in f.get(m, {})})
            if not labels:
                continue
            header = ["attribute"] + [escape(f"{e} {m}") for e in tables for m in metrics]
            header += [escape(f"{e} samples") for e in tables] if part == "group" else []
            rows = []
            for label in labels:
                row = [escape(label)] + [number(found[e].get(m, {}).get(label)) for e in tables for m in metrics]
                if part == "group":
                    row += [str(found[e].get("sample_count", {}).get(label, "-")) for e in tables]
                rows.append(row)
            lines += [f"**{escape(element)} {title}**", "", *_table(header, rows), ""]
    return [*lines, "</details>", ""]


def _where(r: CaseResult) -> str:
    """The item's case, and for a dataset item the entry it comes from (as Case.location)."""
    where = f"{r.file}:{r.line}"
    if r.source_file is not None:
        where += f" (from {r.source_file}:{r.source_line or 1})"
    return where


def _items_table(title: str, results: list[CaseResult], third: str, limit: int) -> list[str]:
    if not results:
        return []
    shown, more = _capped(results, limit)
    rows = [[escape(r.id), escape(_where(r)), escape("; ".join(item_reasons(r)), 2 * CELL_CHARS)] for r in shown]
    lines = [f"#### {title} ({len(results)})", ""] + _table(["item", "where", third], rows)
    return lines + ([more] if more else []) + [""]


def _baseline_sections(view: Comparison, limit: int) -> list[str]:
    lines = [
        "#### Compared with the baseline",
        "",
        f"{view.matched} of {view.current} items found their record in {escape(view.name)} ({view.records} records).",
        "",
    ]
    lines += [f"**Warning:** {escape(w, 2 * CELL_CHARS)}" for w in view.warnings()]
    repeats = any(e.repeated for e in view.engines)
    rows = [
        [escape(e.engine), str(e.compared), str(e.new), str(len(e.regressed))]
        + ([str(e.repeated), str(e.unstable)] if repeats else [])
        for e in view.engines
    ]
    header = ["engine", "compared", "new", "regressed"] + (["with repeats", "unstable"] if repeats else [])
    lines += _table(header, rows) + [""]
    lines += _noise_list(view.families)
    moves = [(e.engine, m) for e in view.engines for m in e.moves]
    if moves:
        lines += _table(
            [
                "engine",
                "metric",
                "items",
                "baseline",
                "now",
                "delta",
                "paired change [interval]",
                "p",
                "told from noise above",
            ],
            [
                [
                    escape(engine),
                    f"{word(m.metric)} {word(p.kind)}" if p else word(m.metric),
                    str(m.n),
                    number(p.old if p else m.old),
                    number(p.new if p else m.new),
                    _move_cell(m.verdict, m.new - m.old) if p is None else _move_cell(p.direction, p.change),
                    *paired_cells(p),
                ]
                for engine, m in moves
                for p in (m.paired or (None,))
            ],
        ) + [""]
    lines += _items_table("Regressed items", view.regressed, "got worse than its tolerance", limit)
    for e in view.engines:
        if e.config_changes:
            lines += (
                [f"**{escape(e.engine)}'s configuration changed** (results may differ for that reason alone):", ""]
                + [f"- {escape(c)}" for c in e.config_changes[:limit]]
                + [""]
            )
    return lines


def _noise_list(families: list[Family]) -> list[str]:
    found = noise_lines(families)
    return [f"- {escape(line, 4 * CELL_CHARS)}" for line in found] + [""] if found else []


def _gates_table(record: RunRecord, limit: int, path: Callable[[str], str]) -> list[str]:
    gates = record.gates
    if not gates:
        return []
    failed = len(record.failed_gates)
    lines = [f"#### Aggregate gates ({len(gates) - failed} passed, {failed} failed)", ""]
    shown, more = _capped(sorted(gates, key=lambda g: g.passed), limit)  # failures first
    # a gate's explanation is pytest-ocr's own sentence: whole, never cut mid-sentence
    rows = [
        [escape(g.name), "✅ passed" if g.passed else "❌ failed", escape(gate_text(g, path), GATE_CHARS)]
        for g in shown
    ]
    return lines + _table(["gate", "result", "detail"], rows) + ([more] if more else []) + [""]


def failures(g: Gating) -> list[str]:
    """What failed the run, one phrase per kind; empty when nothing did. An item both
    over its thresholds and regressed is counted in both, and the phrase says so, so
    that the counts do not read as a sum."""
    both = g.over_thresholds + g.regressed - g.failed_items
    items = [
        f"{_plural(g.over_thresholds, 'item')} over {'its' if g.over_thresholds == 1 else 'their'} thresholds"
        if g.over_thresholds
        else "",
        f"{_plural(g.regressed, 'item')} regressed against the baseline" if g.regressed else "",
    ]
    if both > 0:
        items = [f"{_plural(g.failed_items, 'failed item')} ({', '.join(items)}; {both} both)", ""]
    return [
        phrase
        for n, phrase in (
            (items[0], items[0]),
            (items[1], items[1]),
            (g.other_failed, f"{_plural(g.other_failed, 'other failed item')}"),
            (g.gates_failed, f"{_plural(g.gates_failed, 'aggregate gate')} failed"),
            (
                len(g.checks_failed),
                f"{_plural(len(g.checks_failed), 'run check')} failed "
                f"({'; '.join(escape(c) for c in g.checks_failed[:3])}"
                f"{' …' if len(g.checks_failed) > 3 else ''})",
            ),
            (g.errors, _plural(g.errors, "error")),
            (g.invalid, f"{_plural(g.invalid, 'case file')} that could not be loaded"),
        )
        if n
    ]


def gating_lines(g: Gating) -> list[str]:
    """What gated the run (thresholds, baseline tolerances, aggregate gates) and what failed it."""
    gated = []
    if g.thresholded:
        gated.append(f"- **Thresholds** on {g.thresholded} of {_plural(g.items, 'item')}.")
    if g.baseline is not None:
        name = escape(g.baseline) if g.baseline else "(a stored run)"
        if g.compared and not g.comparing:
            what = (
                f"{_plural(g.compared, 'item')} found their record, but none has a threshold or a "
                f"regression: tolerance, so no metric was compared"
            )
        else:
            what = (
                f"{_plural(g.comparing, 'item')} compared with their records (each metric an item has a "
                f"threshold or a regression: tolerance on)"
            )
        gated.append(f"- **Baseline** {name}: {what}; {g.new} new (not compared).")
    if g.gates:
        gated.append(f"- **Aggregate gates**: {g.gates} (per engine).")
    found = failures(g)
    if gated:
        lines = ["**What gated this run**", ""] + gated + [""]
    else:
        lines = ["**Nothing gated this run**: no thresholds, no baseline, no aggregate gates.", ""]
    if found:
        lines.append(f"**Failed**: {', '.join(found)}.")
    elif gated:
        lines.append("**Passed**: no item over its thresholds, none regressed, no gate failed, no errors.")
    if g.accepted:
        lines.append(
            f"{_plural(g.accepted, 'item')} regressed against the baseline and "
            f"{'was' if g.accepted == 1 else 'were'} accepted as its new records (update)."
        )
    return lines + [""]


def run_markdown(record: RunRecord, limit: int = LIST_LIMIT, project: Path | None = None) -> str:
    """The job summary of one run: how it ended, what gated it and what failed it,
    engines side by side, the baseline comparison, aggregate gates, case files that
    could not be loaded, failed and errored items, items with warnings. ``limit`` caps
    each list (the rest is counted); ``project`` names files relative to it."""

    def path(file: str) -> str:
        return relative(Path(file), project) if project is not None else file

    counts = record.counts()
    total = len(record.results)
    labels: tuple[tuple[Outcome, str], ...] = (
        ("passed", "passed"),
        ("failed", "failed"),
        ("error", "errors" if counts["error"] != 1 else "error"),
        ("filtered", "filtered"),
        ("skipped", "skipped"),
        ("invalid", "invalid case files"),
    )
    shown = [f"{counts[o]} {label}" for o, label in labels if counts[o] or o in ("passed", "failed", "error")]
    lines = ["### OCR results", "", f"{total} items: {', '.join(shown)}.", ""] + gating_lines(record.gating())
    if record.run.status != "complete":
        lines += [
            f"**Run {record.run.status}**: {record.run.not_run} OCR items did not run "
            f"({escape(record.run.interruption or '')}).",
            "",
        ]
    if record.summaries:
        lines += _engines_table(record)
        lines += ["", "macro = mean over items; micro = pooled over items (total errors / total length)", ""]
        if any(m in OMNIDOCBENCH_METRICS for s in record.summaries.values() for m in s.metrics):
            lines += [omnidocbench_note(record.summaries.values()), ""]
        lines += _omnidocbench_tables(record)
    for draws in record.cached_draws:
        lines += [f"**Note:** {escape(draws.text(), 2 * CELL_CHARS)}", ""]
    if record.comparison is not None:
        lines += _baseline_sections(record.comparison, limit)
    lines += _gates_table(record, limit, path)
    lines += _items_table("Case files that could not be loaded", record.with_outcome("invalid"), "error", limit)
    lines += _items_table("Failed", record.with_outcome("failed"), "why", limit)
    lines += _items_table("Errors", record.with_outcome("error"), "error", limit)
    warned = [r for r in record.results if r.warnings]
    if warned:
        rows, more = _capped(warned, limit)
        lines += [f"#### Warnings ({len(warned)})", ""]
        lines += _table(
            ["item", "where", "warning"],
            [[escape(r.id), escape(_where(r)), escape("; ".join(r.warnings), 2 * CELL_CHARS)] for r in rows],
        )
        lines += ([more] if more else []) + [""]
    return _bounded(lines)
