"""An item recognised several times (``repeat:``, ``--ocr-repeat``): every output kept,
each metric's spread over the repeats, how alike the outputs are, and which values the
item's thresholds judge and its result records.

A vision-language engine that samples, or a service behind a load balancer, answers the
same page differently from one call to the next; one call is then one draw. Judging:

- ``mean`` (the default): each metric's mean over the repeats is judged and recorded
  (its counts are the repeats' mean counts, so micro averages pool what macro averages);
- ``worst``: each metric's worst value is judged and recorded (its counts from that repeat);
- ``all``: every repeat must pass every threshold, that is each threshold holds for the
  repeat worst on its metric (the check shows that value); the mean is recorded.

Alike: the share of repeats that gave the most common output, and the mean CER between
every two repeats (the earlier one as the reference, the case's normalisation). An item
whose outputs differ is *unstable*: its result says so, and a warning makes it visible
in every output.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ..cases.model import Case
from ..metrics import METRICS, score
from .score import Evaluation
from .thresholds import Check, judge, not_applicable

JUDGES = ("mean", "worst", "all")


@dataclass(frozen=True)
class Combined:
    """What an item's repeats add up to, in the shape of one evaluation."""

    metrics: dict[str, float | None]  # recorded as the item's values
    details: dict[str, dict[str, Any]]  # the first output's, with the recorded values' counts
    checks: list[Check]
    warnings: list[str]
    repeats: dict[str, Any]  # plain data for the result (see docs/how-to/repeats.md)


def pairwise_cer(case: Case, outputs: Sequence[str]) -> float:
    """The mean CER between every two outputs, the earlier one as the reference."""
    pairs = list(combinations(outputs, 2))
    if not pairs:
        return 0.0
    values = [
        score(a, b, ["cer"], case.normalization, empty_reference_value=case.empty_reference_value)["cer"].value
        for a, b in pairs
    ]
    return math.fsum(v for v in values if v is not None) / len(values)


def _mean_counts(evaluations: Sequence[Evaluation], metric: str) -> dict[str, float]:
    counts = [e.details.get(metric, {}).get("counts") or {} for e in evaluations]
    keys = dict.fromkeys(k for c in counts for k in c)
    return {k: math.fsum(c.get(k, 0.0) for c in counts) / len(counts) for k in keys}


def judged_values(
    metrics: Mapping[str, float | None], judged: str | None, per_repeat: Sequence[Mapping[str, float | None]]
) -> dict[str, float | None]:
    """The values an item's thresholds judge: its recorded ``metrics``, or, when it was
    recognised several times (``per_repeat``: each repeat's values), a metric's recorded
    value only where every repeat has one, and under ``all`` the worst repeat's. From what a
    result records, so that a stored result's verdict can be judged again (run/merge.py)."""
    if not per_repeat:
        return dict(metrics)
    values: dict[str, float | None] = {}
    for m, value in metrics.items():
        each = [v for r in per_repeat if isinstance(v := r.get(m), (int, float))]  # a stored report's: any JSON
        if value is None or len(each) < len(per_repeat):
            values[m] = None
        elif judged == "all":
            values[m] = min(each, key=METRICS[m].worst_first) if m in METRICS else None
        else:
            values[m] = value
    return values


def combine(case: Case, evaluations: Sequence[Evaluation], outputs: Sequence[str]) -> Combined:
    """The repeats' evaluations (in order; the first output's fields and details lead)."""
    n = len(evaluations)
    first = evaluations[0]
    names = [m for m in first.metrics if all(e.metrics.get(m) is not None for e in evaluations)]
    values = {m: [v for e in evaluations if (v := e.metrics[m]) is not None] for m in names}
    mean = {m: math.fsum(v) / n for m, v in values.items()}
    worst_of = {m: min(range(n), key=lambda i: METRICS[m].worst_first(v[i])) for m, v in values.items()}
    worst = {m: values[m][i] for m, i in worst_of.items()}

    judged = case.repeat_judge
    recorded = worst if judged == "worst" else mean
    metrics = {**first.metrics, **recorded}
    details = {m: dict(d) for m, d in first.details.items()}
    for m in names:
        if m in details:
            details[m]["counts"] = (
                evaluations[worst_of[m]].details[m].get("counts", {})
                if judged == "worst"
                else _mean_counts(evaluations, m)
            )
    per_repeat = [dict(e.metrics) for e in evaluations]
    checks = judge(
        case.thresholds, judged_values(metrics, judged, per_repeat), not_applicable(first.metrics, first.details)
    )

    common = Counter(outputs).most_common(1)[0][1]
    distinct = len(set(outputs))
    between = pairwise_cer(case, outputs)
    warnings = list(dict.fromkeys(w for e in evaluations for w in e.warnings))
    if distinct > 1:
        warnings.append(
            f"unstable: {distinct} different outputs in {n} repeats (the most common in {common} of them); "
            f"mean CER between repeats {between:.4f}"
        )
    repeats = {
        "n": n,
        "judge": judged,
        "outputs": list(outputs),
        "metrics": per_repeat,
        "spread": {m: {"min": min(v), "mean": mean[m], "max": max(v)} for m, v in values.items()},
        "identical": common / n,
        "pairwise_cer": between,
        "unstable": distinct > 1,
    }
    return Combined(metrics, details, checks, warnings, repeats)
