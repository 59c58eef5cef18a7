"""Numbers as people read them: the one rule for every view a person reads (terminal,
failure text, Markdown, annotations, HTML). Four decimals, or three significant digits
for values so small that four decimals would hide them; full precision only in JSON."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..scoring.facts import UNCATEGORISED

if TYPE_CHECKING:
    from ..run.aggregate import Summary

TINY = 0.001  # below this (and not zero), four decimals keep fewer than three significant digits


def number(value: float | None) -> str:
    """``0.0726``, ``0.000123``, ``12.5000``; ``-`` for none; ``inf`` and ``nan`` as such."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if value != 0 and abs(value) < TINY:
        return f"{value:.3g}"
    return f"{value:.4f}"


def signed(value: float | None) -> str:
    """A change: ``+0.1134``, ``-0.0021``, ``+0.000120``."""
    if value is None:
        return "-"
    shown = number(value)
    return shown if shown.startswith("-") or not value else "+" + shown


# With repeats, the rows every summary (terminal, Markdown, HTML) shows per engine: label and
# the field of run/aggregate.py's Stability.
STABILITY_ROWS = (
    ("repeated items", "items"),
    ("unstable items", "unstable"),
    ("identical outputs", "identical"),
    ("cer between repeats", "pairwise_cer"),
)


def stability_cell(value: float | None) -> str:
    """A count as it is, a share or a CER as a number; ``-`` for none."""
    return "-" if value is None else str(value) if isinstance(value, int) else number(value)


# OmniDocBench's table of aggregates, in its terms: (label, metric, its name for the macro, for the micro).
OMNIDOCBENCH_ROWS = (
    ("text edit", "odb_text_edit", "ALL_page_avg", "edit_whole"),
    ("formula edit", "odb_formula_edit", "ALL_page_avg", "edit_whole"),
    ("formula CDM", "odb_formula_cdm", "page avg", "all"),
    ("table TEDS", "odb_table_teds", "page avg", "all"),
    ("table TEDS-S", "odb_table_teds_struct", "page avg", "all"),
    ("table edit", "odb_table_edit", "ALL_page_avg", "edit_whole"),
    ("reading order edit", "odb_reading_order_edit", "ALL_page_avg", "edit_whole"),
)

OMNIDOCBENCH_NOTE = (
    "OmniDocBench v1.5 end to end (quick_match): ALL_page_avg and page avg = mean over the pages that have "
    "the element (macro); edit_whole and TEDS all = pooled over its samples (micro)"
)


def omnidocbench_note(summaries: Iterable[Summary]) -> str:
    """What the table of aggregates means, and how its Overall was computed or why there is none."""
    if any(s.omnidocbench_overall for s in summaries):
        return (
            f"{OMNIDOCBENCH_NOTE}; Overall = ((1 - text edit) * 100 + CDM * 100 + TEDS * 100) / 3 of the page "
            "averages, each rounded to 3 decimals first, as OmniDocBench's notebook does"
        )
    return f"{OMNIDOCBENCH_NOTE}; no Overall (it needs CDM)"


def omnidocbench_rows(summaries: list[Summary]) -> list[tuple[str, list[str]]]:
    """The rows every summary (terminal, Markdown) shows per engine for OmniDocBench's metrics
    (each engine's Summary.metrics): each element's mean over the pages that have it (its
    ALL_page_avg, with the number of pages) and over its samples pooled (edit_whole; TEDS all),
    and OmniDocBench's Overall when CDM was computed."""
    rows: list[tuple[str, list[str]]] = []
    for label, metric, macro, micro in OMNIDOCBENCH_ROWS:
        found = [s.metrics.get(metric) for s in summaries]
        if not any(found):
            continue
        rows.append((f"{label} {macro}", [f"{number(a.macro)} ({a.n} pages)" if a else "-" for a in found]))
        rows.append((f"{label} {micro}", [number(a.micro) if a else "-" for a in found]))
    if rows and any(s.omnidocbench_overall for s in summaries):
        rows.append(("Overall", [number(o.overall) if (o := s.omnidocbench_overall) else "-" for s in summaries]))
    return rows


def fact_rows(facts: list[dict[str, Any] | None]) -> list[tuple[str, list[str]]]:
    """The rows every summary (terminal, Markdown, HTML) shows per engine for the facts its
    items were checked on (run/aggregate.py's FactSummary as a dict, None: no checks):
    how many hold, olmOCR-Bench's score and its interval, then each category and type."""
    if not any(facts):
        return []
    present = [f or {} for f in facts]

    def cell(f: dict[str, Any], render: Callable[[dict[str, Any]], str]) -> str:
        return render(f) if f else "-"

    def interval(f: dict[str, Any]) -> str:
        ci = f.get("ci95")
        return f"{number(ci[0])}-{number(ci[1])}" if ci else "-"

    rows = [
        ("facts held", [cell(f, lambda f: f"{f['passed']} of {f['facts']}") for f in present]),
        ("checks score", [cell(f, lambda f: number(f["score"])) for f in present]),
        ("checks score 95% CI", [cell(f, interval) for f in present]),
    ]
    categories = sorted({c for f in present for c in f.get("categories", {})})
    for category in categories if categories != [UNCATEGORISED] else []:
        rows.append(
            (
                f"category {category}",
                [_held(f.get("categories", {}).get(category)) for f in present],
            )
        )
    for kind in sorted({t for f in present for t in f.get("types", {})}):
        rows.append((f"type {kind}", [_share(f.get("types", {}).get(kind)) for f in present]))
    return rows


def _held(counts: list[int] | None) -> str:
    return f"{number(counts[0] / counts[1])} ({counts[0]}/{counts[1]})" if counts else "-"


def _share(value: list[float] | None) -> str:
    return f"{number(value[0])} ({int(value[1])})" if value else "-"
