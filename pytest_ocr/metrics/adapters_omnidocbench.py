"""OmniDocBench's end-to-end metrics of a page: one scoring of the page (``Prepared.omnidocbench``,
metrics/omnidocbench/), shared by all seven, turned into each metric's counts.

Edit distances: ``{edits, upper, ratio_sum, samples}`` over the page's samples of an element
that have a metric (OmniDocBench's Edit_dist: ``edit_num`` and ``upper_len``); the value,
edits / upper, is its per-page edit, so the macro over pages is its ``ALL_page_avg`` and the
micro its ``edit_whole``. TEDS: ``{teds_sum, tables}``, the micro its TEDS ``all``. CDM:
``{cdm_sum, formulas}``, the macro its page split's ``ALL``, the micro its ``all``. A page
without samples of an element has no value for its metrics, as OmniDocBench leaves it out of
that element's averages: the details say why (``not_applicable``).

For OmniDocBench's grouped results (run/omnidocbench.py) the details also hold the page's
``page`` (``key``: the page its page split files it under, ``name``: its own, ``attributes``:
its page attributes in the split's names) and ``groups``: per block-attribute label, the sum
of its samples' values and their number (get_full_labels_results).

The catalogue (registry.py) finds them by name in ``COMPUTE``; a run without them never
imports this module, scipy nor pylatexenc.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .. import limits
from ..errors import shortened
from ..visible import visible
from .prepared import MetricResult, Prepared
from .values import odb_cdm_value, odb_edit_value, odb_teds_value

if TYPE_CHECKING:
    from .omnidocbench.page import Sample

# What a page lacks when it has no sample of an element.
ABSENT = {
    "text_block": "the page has no text to match (no text block on either side)",
    "display_formula": "the page has no display formulas",
    "table": "the page has no tables",
    "reading_order": "the page has no blocks in reading order",
}


def _details(p: Prepared, unit: str, samples: int, **more: object) -> dict:
    page = p.omnidocbench
    details: dict[str, object] = {
        "unit": unit,
        "samples": samples,
        "match_work": page.match_work,
        "page": {"key": page.split_page, "name": page.name, "attributes": list(page.attributes)},
        **more,
    }
    if page.fallback is not None:  # the work bound was reached: the simple match scored the page
        details["fallback"] = page.fallback
        details["warnings"] = [f"OmniDocBench's quick match gave up on this page ({page.fallback}): {FALLBACK}"]
    return details


def _groups(scored: Iterable[tuple[Sample, float]]) -> dict[str, list[float]]:
    """Per block-attribute label: [sum of the values of the samples under it, their number]."""
    groups: dict[str, list[float]] = {}
    for sample, value in scored:
        for label in sample.labels:
            group = groups.setdefault(label, [0.0, 0])
            group[0] += value
            group[1] += 1
    return groups


FALLBACK = "its text was matched by the simple method, as OmniDocBench does when its match times out"


def _edit_metric(element: str) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        page = p.omnidocbench
        c = page.edit_counts(element)
        if not c.samples:
            return MetricResult(None, {}, {**_details(p, "character", 0), "not_applicable": ABSENT[element]})
        counts: dict[str, float] = {"edits": c.edits, "upper": c.upper, "ratio_sum": c.ratio_sum, "samples": c.samples}
        empty = sum(not s.pred for s in page.of(element) if s.edit_num is not None)
        scored = ((s, s.edit) for s in page.of(element) if s.edit is not None)
        details = _details(p, "character", c.samples, empty_predictions=empty, groups=_groups(scored))
        return MetricResult(odb_edit_value(counts), counts, details)

    return compute


def _teds_metric(structure_only: bool) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        tables = p.omnidocbench.of("table")
        if not tables:
            return MetricResult(None, {}, {**_details(p, "table", 0), "not_applicable": ABSENT["table"]})
        scores = [s.teds_struct if structure_only else s.teds for s in tables]
        counts: dict[str, float] = {"teds_sum": sum(t or 0.0 for t in scores), "tables": len(tables)}
        empty = sum(not s.pred for s in tables)
        groups = _groups(zip(tables, (t or 0.0 for t in scores), strict=True))
        details = _details(
            p, "table", len(tables), structure_only=structure_only, empty_predictions=empty, groups=groups
        )
        not_compared = list(p.omnidocbench.not_compared)
        if not_compared:  # pairs beyond TEDS's bounds, scored 0: the item warns
            details.update(not_compared=not_compared, warnings=[*details.get("warnings", []), *not_compared])
        return MetricResult(odb_teds_value(counts), counts, details)

    return compute


def _formula_cdm(p: Prepared) -> MetricResult:
    """CDM of each display formula, as cal_metric.py's call_CDM scores every display-formula sample (those
    Edit_dist leaves out, both sides empty, too: they score 0). A tool that is missing or breaks raises
    (the item's error), and so does the page's time past --ocr-max-cdm-s (a value of some of its formulas
    is no score of the page); a formula OmniDocBench scores 0 without comparing keeps its 0, and the item warns,
    as does one CDM does not typeset (cdm_allowed.py)."""
    from .omnidocbench.cdm import CdmOutOfTime, cdm

    formulas = p.omnidocbench.of("display_formula")
    if not formulas:
        return MetricResult(None, {}, {**_details(p, "formula", 0), "not_applicable": ABSENT["display_formula"]})
    seconds = limits.active().max_cdm_s
    deadline = time.monotonic() + seconds
    results = []
    for s in formulas:
        try:
            results.append(cdm(str(s.gt), str(s.pred), deadline=deadline))
        except CdmOutOfTime as exc:
            raise CdmOutOfTime(
                f"CDM of the page's {len(formulas)} display formula{'s' if len(formulas) > 1 else ''} took more "
                f"than {seconds:g} s before formula {len(results) + 1} was scored; the page is not scored "
                f"({limits.OPTIONS['max_cdm_s']} sets the bound)"
            ) from exc
    counts: dict[str, float] = {"cdm_sum": sum(r.f1 for r in results), "formulas": len(results)}
    scores = [r.f1 for r in results]
    details = _details(p, "formula", len(results), scores=scores, groups=_groups(zip(formulas, scores, strict=True)))
    failures = [f"CDM scored display formula {i + 1} 0: {r.failure}" for i, r in enumerate(results) if r.failure]
    if failures:
        details.update(failures=failures, warnings=[*details.get("warnings", []), *failures])
    unrendered = [
        f"CDM of display formula {i + 1}: no font here has {visible(shortened(''.join(r.missing_glyphs)))!r}, "
        f"which rendered as nothing; {GLYPHS}"
        for i, r in enumerate(results)
        if r.missing_glyphs
    ]
    if unrendered:
        details["warnings"] = [*details.get("warnings", []), *unrendered]
    return MetricResult(odb_cdm_value(counts), counts, details)


GLYPHS = (
    "it scores otherwise where the fonts of OmniDocBench's template are installed (its CJK font: Source Han Sans SC)"
)


COMPUTE: dict[str, Callable[[Prepared], MetricResult]] = {
    "odb_text_edit": _edit_metric("text_block"),
    "odb_formula_edit": _edit_metric("display_formula"),
    "odb_table_edit": _edit_metric("table"),
    "odb_reading_order_edit": _edit_metric("reading_order"),
    "odb_table_teds": _teds_metric(False),
    "odb_table_teds_struct": _teds_metric(True),
    "odb_formula_cdm": _formula_cdm,
}
