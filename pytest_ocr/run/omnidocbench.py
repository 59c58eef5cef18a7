"""OmniDocBench's grouped results of an engine's items, as its metrics/show_result.py computes
them at v1.5 (7bd6c2e), from what each item's OmniDocBench metrics record in their details
(metrics/adapters_omnidocbench.py): ``page`` (get_page_split: by page attribute) and
``group`` (get_full_labels_results: by block attribute), in the shape of its
``*_metric_result.json``, so that the two can be set side by side.

- page: per page attribute (and ``ALL``), the mean over pages of each page's value. A page's
  edit distance is its edits over its summed lengths, its TEDS the mean of its tables. Quirk
  kept: a page is OmniDocBench's page key (``PageScores.split_page``), so pages whose keys
  collide (``made_quirk_tif.tif`` and ``made_quirk.png``) are pooled as one page with the
  attributes of the page that has the key's name. Where no page of the run has that name,
  OmniDocBench fails (KeyError); here the page keeps its own attributes.
- group: per block-attribute label, the mean of the values of the samples under it, and
  ``sample_count``. Quirk kept: a label's count is that of the last metric OmniDocBench gives
  its samples: a table label's its Edit_dist samples' (or its TEDS samples' when it has none),
  a display-formula label's its CDM samples' when CDM ran.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from ..metrics import pooled
from .result import CaseResult

# Each metric as OmniDocBench names it in its results, (element, metric), in the order it
# gives a sample its metrics (a table: TEDS, TEDS_structure_only, then Edit_dist; a display
# formula: Edit_dist, then CDM).
ORIGINAL = {
    "odb_text_edit": ("text_block", "Edit_dist"),
    "odb_formula_edit": ("display_formula", "Edit_dist"),
    "odb_formula_cdm": ("display_formula", "CDM"),
    "odb_table_teds": ("table", "TEDS"),
    "odb_table_teds_struct": ("table", "TEDS_structure_only"),
    "odb_table_edit": ("table", "Edit_dist"),
    "odb_reading_order_edit": ("reading_order", "Edit_dist"),
}


def omnidocbench_tables(results: Iterable[CaseResult], every: Iterable[CaseResult]) -> dict[str, Any] | None:
    """``{element: {"page": {metric: {attribute: value}}, "group": {metric: {label: value},
    "sample_count": {label: n}}}}`` over ``results`` (one engine's items); ``every``: all the
    run's items, where a page's attributes are looked up by name. None: no OmniDocBench metric."""
    scored = [r for r in results if any(r.metrics.get(name) is not None for name in ORIGINAL)]
    if not scored:
        return None
    attributes = {
        page["name"]: page["attributes"]
        for r in every
        for name in ORIGINAL
        if (page := r.details.get(name, {}).get("page")) is not None
    }
    tables: dict[str, dict[str, Any]] = {}
    for name, (element, metric) in ORIGINAL.items():
        # an item recorded before its details held its page (a shard of an older run) is left out
        have = [r for r in scored if r.metrics.get(name) is not None and "page" in r.details.get(name, {})]
        if not have:
            continue
        table = tables.setdefault(element, {"page": {}, "group": {"sample_count": {}}})
        table["page"][metric] = _page_split(name, have, attributes)
        group = table["group"]
        sums: dict[str, list[float]] = defaultdict(list)
        counts: dict[str, int] = defaultdict(int)
        for r in have:
            for label, (total, n) in r.details[name].get("groups", {}).items():
                sums[label].append(total)
                counts[label] += int(n)
        if sums:
            group[metric] = {label: math.fsum(sums[label]) / counts[label] for label in sorted(sums)}
        group["sample_count"].update(counts)  # the last metric's count stays
    for table in tables.values():  # in order, as OmniDocBench's sort_nested_dict leaves them
        table["page"] = dict(sorted(table["page"].items()))
        table["group"] = dict(sorted(table["group"].items()))
        table["group"]["sample_count"] = dict(sorted(table["group"]["sample_count"].items()))
    return tables


def _page_split(name: str, results: list[CaseResult], attributes: dict[str, list[str]]) -> dict[str, float]:
    """get_page_split's page-level values of one metric: each page key's counts pooled (a
    page's value as the metric's own formula of them), then the mean over the keys per attribute."""
    pages: dict[str, dict[str, float]] = {}
    page_attributes: dict[str, list[str]] = {}
    for r in results:
        page = r.details[name]["page"]
        totals = pages.setdefault(page["key"], defaultdict(float))
        for key, count in r.details[name]["counts"].items():
            totals[key] += count
        page_attributes.setdefault(page["key"], attributes.get(page["key"], page["attributes"]))
    values: dict[str, list[float]] = defaultdict(list)
    for key, totals in pages.items():
        value = pooled(name, totals)
        for attribute in ("ALL", *page_attributes[key]):
            values[attribute].append(value)
    return {attribute: math.fsum(v) / len(v) for attribute, v in sorted(values.items())}
