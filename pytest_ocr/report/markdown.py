"""Markdown for pull-request comments and GitHub's job summary ($GITHUB_STEP_SUMMARY).

Text that comes from engine output, case files or reports (ids, engine names, error
messages, warnings, configuration values) is untrusted: ``escape`` makes it inert
Markdown and HTML, one line, of bounded length. Lists are capped and say how many
were left out, and the whole text is cut below GitHub's 1 MiB step-summary limit.
"""

from __future__ import annotations

import unicodedata

from ..compare import CaseComparison, Comparison, EngineComparison, MetricDelta
from ..metrics import METRICS
from .failure import failure_reasons

LIST_LIMIT = 20  # items shown per list
CELL_CHARS = 200  # characters of untrusted text per cell or list item
MAX_BYTES = 512 * 1024  # GitHub refuses step summaries over 1 MiB; leave room for other steps
HEADLINE_METRICS = ("cer", "wer")

# Backslash escapes stop Markdown syntax (emphasis, links, code, tables, strikethrough,
# math, headings); entities stop HTML. A zero-width space after @ keeps OCR text from
# mentioning people in a PR comment. One translate pass, so no escape is escaped again.
_ESCAPES = str.maketrans({
    "&": "&amp;", "<": "&lt;", ">": "&gt;",
    "\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|",
    "~": "\\~", "$": "\\$", "#": "\\#", "!": "\\!",
    "@": "@\u200b",
})
# Directional overrides could make a line read differently from what it holds.
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def escape(text: object, limit: int = CELL_CHARS) -> str:
    """Untrusted text as inert, single-line Markdown of at most ``limit`` characters
    (before escaping; a cut is marked with …)."""
    text = str(text)
    if len(text) > limit:
        text = text[:limit - 1] + "…"
    cleaned = "".join(
        " " if ch in "\r\n\t" else "\ufffd" if ch in _BIDI or unicodedata.category(ch) == "Cc" else ch
        for ch in text
    )
    return cleaned.translate(_ESCAPES)


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _signed(change: float) -> str:
    # A change that rounds to zero at 4 decimals must not read as "+0.0000 worse".
    return f"{change:+.4f}" if change == 0 or abs(change) >= 0.00005 else f"{change:+.1e}"


def delta_cell(d: MetricDelta) -> str:
    """``▲ +0.0150 worse``: the arrow is the value's move, the word its meaning for this metric."""
    if d.change is None:
        return "-"
    if d.direction == "same":
        return "same"
    arrow = "▲" if d.change > 0 else "▼"
    return f"{arrow} {_signed(d.change)} {d.direction}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def _capped(items: list, limit: int) -> tuple[list, str | None]:
    """The first ``limit`` items, and a line saying how many were left out (or None)."""
    if len(items) <= limit:
        return items, None
    return items[:limit], f"… and {len(items) - limit} more"


def _bounded(lines: list[str]) -> str:
    """The lines joined, cut at a line boundary below MAX_BYTES with a note saying so."""
    text = "\n".join(lines) + "\n"
    if len(text.encode("utf-8")) <= MAX_BYTES:
        return text
    kept, size = [], 0
    for line in lines:
        size += len(line.encode("utf-8")) + 1
        if size > MAX_BYTES - 200:
            break
        kept.append(line)
    kept += ["", f"*Cut at {MAX_BYTES // 1024} KiB: {len(lines) - len(kept)} more lines left out "
                 f"(GitHub limits a step summary to 1 MiB).*"]
    return "\n".join(kept) + "\n"


# -- comparison -----------------------------------------------------------------------------


def _engine_delta_table(e: EngineComparison) -> list[str]:
    rows = []
    for name in ("cases", "passed", "failed", "errors"):
        old, new = e.base.get(name, 0), e.head.get(name, 0)
        rows.append([name, str(old), str(new), f"{new - old:+d}" if new != old else "same"])
    for d in e.metrics:
        rows.append([f"{d.metric} {d.kind}", _value(d.old), _value(d.new), delta_cell(d)])
    return _table(["metric", "base", "head", "delta"], rows)


def _case_changes(case: CaseComparison) -> str:
    worse = [d for d in case.deltas if d.direction == "worse"]
    return "; ".join(f"{d.metric} {_value(d.old)} → {_value(d.new)} ({delta_cell(d)})" for d in worse) or "-"


def _regressed_table(comparison: Comparison, limit: int) -> list[str]:
    regressed = comparison.regressed_cases()
    if not regressed:
        return []
    shown, more = _capped(regressed, limit)
    rows = [[escape(c.id), escape(f"{c.file}:{c.line}"), _case_changes(c),
             escape(c.new_outcome if c.old_outcome == c.new_outcome else f"{c.old_outcome} → {c.new_outcome}"),
             "yes" if c.violated else ""] for c in shown]
    lines = [f"**Regressed items ({len(regressed)})**", ""]
    lines += _table(["item", "where", "got worse", "outcome", "rule broken"], rows)
    return lines + ([more] if more else []) + [""]


def _comparison_sections(comparison: Comparison, limit: int, heading: str) -> list[str]:
    lines: list[str] = []
    if comparison.violations:
        lines += [f"**Rule violations ({len(comparison.violations)})**", ""]
        shown, more = _capped(comparison.violations, limit)
        lines += [f"- ❌ {escape(v.rule)}: {escape(v.message, 2 * CELL_CHARS)}" for v in shown]
        lines += ([more] if more else []) + [""]
    for e in comparison.engines:
        lines += [f"{heading} {escape(e.engine)}", ""]
        if e.unchanged:
            n = e.head.get("cases", 0)
            lines += [f"No change: {n} item{'s' if n != 1 else ''}, the same counts and aggregates.", ""]
        else:
            lines += _engine_delta_table(e) + [""]
    for label, names in (("New engines", comparison.new_engines),
                         ("Engines no longer run", comparison.removed_engines)):
        if names:
            lines += [f"**{label}:** " + ", ".join(escape(n) for n in names[:limit])
                      + (f" … and {len(names) - limit} more" if len(names) > limit else ""), ""]
    lines += _regressed_table(comparison, limit)
    if comparison.outcome_changes:
        lines += [f"**Outcome changed ({len(comparison.outcome_changes)})**", ""]
        shown, more = _capped(comparison.outcome_changes, limit)
        for o in shown:
            reason = f": {escape(o.error)}" if o.error else ""
            lines.append(f"- {escape(o.id)}: {escape(o.old)} → {escape(o.new)}{reason}")
        lines += ([more] if more else []) + [""]
    lines += [f"**Items:** {len(comparison.new_items)} new, {len(comparison.removed_items)} removed "
              f"(not compared), {len(comparison.cases)} in both.", ""]
    for label, ids in (("New", comparison.new_items), ("Removed", comparison.removed_items)):
        if ids:
            shown, more = _capped(ids, limit)
            lines += [f"{label}: " + ", ".join(escape(i) for i in shown) + (f" {more}" if more else ""), ""]
    if comparison.fingerprints:
        lines += ["**Engine configuration changed** (results may differ for that reason alone)", ""]
        engines, more_engines = _capped(comparison.fingerprints, limit)
        for f in engines:
            lines.append(f"- {escape(f.engine)}")
            shown, more = _capped(f.changes, limit)
            lines += [f"  - {escape(change)}" for change in shown] + ([f"  - {more}"] if more else [])
        lines += ([f"- {more_engines}"] if more_engines else []) + [""]
    for note in comparison.notes:
        lines += [f"*Note: {escape(note)}*", ""]
    return lines


def _verdict(comparison: Comparison) -> str:
    if not comparison.rules:
        return "No rules given (--fail-on): changes are shown, nothing is gated."
    rules = ", ".join(escape(r) for r in comparison.rules)
    if comparison.failed:
        n = len(comparison.violations)
        return f"**FAILED**: {n} rule violation{'s' if n != 1 else ''} (rules: {rules})."
    return f"**No regression**: no rule violated (rules: {rules})."


def comparison_markdown(comparison: Comparison, limit: int = LIST_LIMIT) -> str:
    """A PR-comment-ready section: verdict, rule violations, per-engine deltas, regressed
    items, outcome changes, new and removed items, changed engine configurations."""
    lines = ["### OCR comparison: base → head", "", _verdict(comparison), ""]
    return _bounded(lines + _comparison_sections(comparison, limit, "####"))


# -- one run ------------------------------------------------------------------------------


def _failure_reason(record: dict) -> str:
    """Why an item failed: its failing checks, else its baseline regressions, else its message."""
    reasons = failure_reasons(record.get("checks"), record.get("baseline"))
    if not reasons and (record.get("error") or "").strip():
        reasons = [_error_line(record)]
    return "; ".join(reasons) or "failed"


def _error_line(record: dict) -> str:
    text = (record.get("error") or "").strip()
    return text.splitlines()[0] if text else "no message"


def shown_metrics(report: dict) -> list[str]:
    """CER and WER, and every metric some item has a threshold on, that some engine measured."""
    measured = {m for s in report["summary"].values() for m in s["metrics"]}
    thresholded = {m for r in report["results"] for m in r.get("thresholds") or {}}
    return [m for m in METRICS if m in measured and (m in HEADLINE_METRICS or m in thresholded)]


def _engines_table(report: dict) -> list[str]:
    summaries = report["summary"]
    engines = list(summaries)
    rows = [[name] + [str(summaries[e][name]) for e in engines] for name in ("cases", "passed", "failed", "errors")]
    for metric in shown_metrics(report):
        for kind in ("macro", "micro"):
            rows.append([f"{metric} {kind}"] + [_value((summaries[e]["metrics"].get(metric) or {}).get(kind))
                                                for e in engines])
    return _table(["engine"] + [escape(e) for e in engines], rows)


def _items_table(title: str, records: list[dict], third: str, reason, limit: int) -> list[str]:
    if not records:
        return []
    shown, more = _capped(records, limit)
    rows = [[escape(r["id"]), escape(f"{r['file']}:{r['line']}"), escape(reason(r), 2 * CELL_CHARS)] for r in shown]
    lines = [f"#### {title} ({len(records)})", ""] + _table(["item", "where", third], rows)
    return lines + ([more] if more else []) + [""]


def run_markdown(report: dict, comparison: Comparison | None = None, gates: list[dict] = (),
                 annotations_limit: int = LIST_LIMIT) -> str:
    """The job summary of one run (a report document): engines side by side, deltas
    against the baseline when ``comparison`` is given, aggregate gates ({"name",
    "passed", "message"}; by default the report's own), failed and errored items,
    items with warnings.
    ``annotations_limit`` caps each list (the rest is counted, not shown)."""
    limit = annotations_limit
    records = report["results"]
    counts = {o: sum(r["outcome"] == o for r in records) for o in ("passed", "failed", "error")}
    lines = ["### OCR results", "",
             f"{len(records)} items: {counts['passed']} passed, {counts['failed']} failed, "
             f"{counts['error']} error{'s' if counts['error'] != 1 else ''}.", ""]
    if report.get("invalid_files"):
        n = len(report["invalid_files"])
        lines += [f"**{n} case file{'s' if n != 1 else ''} could not be loaded:** "
                  + ", ".join(escape(f["file"]) for f in report["invalid_files"][:limit])
                  + (f" … and {n - limit} more" if n > limit else ""), ""]
    if report["summary"]:
        lines += _engines_table(report)
        lines += ["", "macro = mean over items; micro = pooled over items (total errors / total length)", ""]
    if comparison is not None:
        lines += ["#### Compared with the baseline", "", _verdict(comparison), ""]
        lines += _comparison_sections(comparison, limit, "#####")
    gates = list(gates) or report.get("gates") or []  # a report of a run with gates records them
    if gates:
        failed = sum(not g["passed"] for g in gates)
        lines += [f"#### Aggregate gates ({len(gates) - failed} passed, {failed} failed)", ""]
        shown, more = _capped(sorted(gates, key=lambda g: g["passed"]), limit)  # failures first
        rows = [[escape(g["name"]), "✅ passed" if g["passed"] else "❌ failed", escape(g.get("message") or "")]
                for g in shown]
        lines += _table(["gate", "result", "detail"], rows) + ([more] if more else []) + [""]
    lines += _items_table("Failed", [r for r in records if r["outcome"] == "failed"], "why", _failure_reason, limit)
    lines += _items_table("Errors", [r for r in records if r["outcome"] == "error"], "error", _error_line, limit)
    warned = [r for r in records if r.get("warnings")]
    lines += _items_table("Warnings", warned, "warning", lambda r: "; ".join(r["warnings"]), limit)
    return _bounded(lines)

