"""The table metrics' computations: TEDS of a page's tables, Markdown or HTML (teds.py).

The catalogue (registry.py) finds them by name in ``COMPUTE``; a run whose cases ask for
no table metric never imports this module nor lxml, apted and markdown-it.
"""

from __future__ import annotations

from collections.abc import Callable

from . import teds
from .prepared import MAX_LISTED, MetricResult, Prepared
from .values import teds_value


def _teds_metric(structure_only: bool) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        page = teds.score_tables(
            p.ref_tables,
            p.hyp_tables,
            structure_only,
            None if structure_only else p.normalization,  # on each piece of a cell's text
            teds.max_table_nodes(None),
            p.max_align_chars,
        )
        more: dict[str, object] = {
            "structure_only": structure_only,
            "reference_tables": page.reference_tables,
            "hypothesis_tables": page.hypothesis_tables,
        }
        counts: dict[str, float] = {"distance": page.distance, "nodes": page.nodes}
        listed = page.pairs[:MAX_LISTED]
        more["tables"] = [
            {
                "reference_line": None if t.reference is None else p.ref_tables[t.reference].line,
                "hypothesis_line": None if t.hypothesis is None else p.hyp_tables[t.hypothesis].line,
                "distance": t.distance,
                "nodes": t.nodes,
                "teds": t.teds,
                "compared": t.compared,
            }
            for t in listed
        ]
        if len(listed) < len(page.pairs):
            more["tables_listed"] = len(listed)
        if page.not_compared:  # pairs beyond the bounds, counted as all wrong: the item warns
            more.update(not_compared=list(page.not_compared), warnings=list(page.not_compared))
        return MetricResult(teds_value(counts), counts, p.details("node", not p.ref_tables, **more))

    return compute


COMPUTE: dict[str, Callable[[Prepared], MetricResult]] = {
    "teds": _teds_metric(False),
    "teds_struct": _teds_metric(True),
}
