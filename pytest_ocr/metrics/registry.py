"""Metrics by name: what users write in ``thresholds:`` and see in reports.

Each metric turns a prepared (normalised) reference/hypothesis pair into a
MetricResult whose ``numerator / denominator`` pool across cases into the micro
average, so aggregation needs no metric-specific code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from .edit import ErrorCounts, align_counts, error_rate
from .normalize import DEFAULT, Normalization


@dataclass(frozen=True)
class MetricResult:
    value: float
    numerator: float
    denominator: float
    details: dict = field(default_factory=dict)


class Prepared:
    """A reference/hypothesis pair, normalised once; alignments computed on demand
    and shared by the metrics that need them."""

    def __init__(self, reference: str, hypothesis: str, normalization: Normalization = DEFAULT):
        self.normalization = normalization
        self.reference = normalization(reference)
        self.hypothesis = normalization(hypothesis)

    @cached_property
    def chars(self) -> ErrorCounts:
        return align_counts(self.reference, self.hypothesis, "codepoint")

    @cached_property
    def words(self) -> ErrorCounts:
        return align_counts(self.reference.split(), self.hypothesis.split(), "word")

    def base_details(self, empty_reference: bool | None = None) -> dict:
        """What every metric records: normalisation steps and whether the empty-reference
        policy decided the value (by default: the normalised reference is empty)."""
        if empty_reference is None:
            empty_reference = not self.reference
        return {"normalization": self.normalization.steps(), "empty_reference": empty_reference}


@dataclass(frozen=True)
class MetricInfo:
    name: str
    better: str  # "lower" or "higher"
    unit: str
    description: str
    compute: Callable[[Prepared], MetricResult]

    def improved(self, old: float, new: float) -> bool:
        return new < old if self.better == "lower" else new > old


def _rate(counts: ErrorCounts, prepared: Prepared) -> MetricResult:
    return MetricResult(
        value=counts.rate,
        numerator=counts.errors,
        denominator=counts.reference_length,
        details={
            **prepared.base_details(empty_reference=counts.reference_length == 0),
            "unit": counts.unit,
            "denominator": "reference_length",
            "substitutions": counts.substitutions,
            "deletions": counts.deletions,
            "insertions": counts.insertions,
            "hits": counts.hits,
            "reference_length": counts.reference_length,
            "hypothesis_length": counts.hypothesis_length,
        },
    )


def _cer(p: Prepared) -> MetricResult:
    return _rate(p.chars, p)


def _wer(p: Prepared) -> MetricResult:
    return _rate(p.words, p)


def _ned(p: Prepared) -> MetricResult:
    longer = max(len(p.reference), len(p.hypothesis))
    distance = p.chars.errors
    return MetricResult(
        value=distance / longer if longer else 0.0,
        numerator=distance,
        denominator=longer,
        details={**p.base_details(), "unit": "codepoint", "denominator": "max_length", "distance": distance},
    )


def _exact_match(p: Prepared) -> MetricResult:
    match = 1.0 if p.reference == p.hypothesis else 0.0
    return MetricResult(value=match, numerator=match, denominator=1, details=p.base_details())


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        MetricInfo("cer", "lower", "codepoint", "character error rate: (S+D+I) / reference characters", _cer),
        MetricInfo("wer", "lower", "word", "word error rate: (S+D+I) / reference words", _wer),
        MetricInfo("ned", "lower", "codepoint", "normalised edit distance: edits / longer length", _ned),
        MetricInfo("exact_match", "higher", "case", "1 if the normalised texts are identical, else 0", _exact_match),
    )
}

DEFAULT_METRICS = ("cer", "wer", "ned", "exact_match")


def pooled(numerator: float, denominator: float) -> float:
    """Micro average of pooled counts, with the same empty-reference policy as one case."""
    return error_rate(numerator, denominator)


def unknown_metrics(names: Iterable[str]) -> list[str]:
    return [n for n in names if n not in METRICS]


def score(
    reference: str,
    hypothesis: str,
    names: Iterable[str] = DEFAULT_METRICS,
    normalization: Normalization = DEFAULT,
) -> dict[str, MetricResult]:
    """Compute the named metrics for one reference/hypothesis pair."""
    names = list(names)
    unknown = unknown_metrics(names)
    if unknown:
        raise KeyError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(sorted(METRICS))}")
    prepared = Prepared(reference, hypothesis, normalization)
    return {name: METRICS[name].compute(prepared) for name in names}
