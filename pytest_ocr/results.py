"""Per-item results (plain, JSON-safe) and their aggregation per engine."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from .metrics import METRICS, pooled

OUTCOMES = ("passed", "failed", "error")


@dataclass
class CaseResult:
    """One case × engine, as it travels on the test report and lands in reports."""

    id: str  # pytest node id
    case: str
    file: str
    line: int
    engine: str
    image: str
    outcome: str  # passed | failed | error
    tags: list[str] = field(default_factory=list)
    reference: str | None = None
    prediction: str | None = None
    confidence: float | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    details: dict[str, dict] = field(default_factory=dict)
    thresholds: dict[str, str] = field(default_factory=dict)
    checks: list[dict] = field(default_factory=list)
    error: str | None = None
    duration_s: float = 0.0
    inference_s: float | None = None
    fingerprint: dict | None = None  # the engine's; reports keep it once per engine

    def to_dict(self) -> dict:
        # Fields already hold plain values; a shallow copy avoids asdict's deep copy.
        return json_safe({name: getattr(self, name) for name in self.__dataclass_fields__})

    @classmethod
    def from_dict(cls, data: dict) -> CaseResult:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def json_safe(value):
    """Replace NaN and infinities (which standard JSON cannot hold) with None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


@dataclass
class MetricAggregate:
    macro: float | None  # mean over cases
    micro: float | None  # pooled numerators / pooled denominators
    n: int  # cases that have this metric


@dataclass
class EngineSummary:
    engine: str
    cases: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    metrics: dict[str, MetricAggregate] = field(default_factory=dict)


def aggregate_metric(results: list[CaseResult], name: str) -> MetricAggregate:
    values = [r.metrics[name] for r in results if r.metrics.get(name) is not None]
    numerator = denominator = 0.0
    for r in results:
        detail = r.details.get(name)
        if detail and "numerator" in detail:
            numerator += detail["numerator"]
            denominator += detail["denominator"]
    return MetricAggregate(
        macro=math.fsum(values) / len(values) if values else None,
        micro=pooled(numerator, denominator) if values else None,
        n=len(values),
    )


def summarize(results: list[CaseResult]) -> dict[str, EngineSummary]:
    """Per-engine counts and macro/micro means of every metric that was computed."""
    by_engine: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_engine[r.engine].append(r)
    summaries = {}
    for engine in sorted(by_engine):
        rs = by_engine[engine]
        summary = EngineSummary(engine, cases=len(rs))
        summary.passed = sum(r.outcome == "passed" for r in rs)
        summary.failed = sum(r.outcome == "failed" for r in rs)
        summary.errors = sum(r.outcome == "error" for r in rs)
        names = sorted({n for r in rs for n in r.metrics}, key=lambda n: (list(METRICS).index(n) if n in METRICS else 99, n))
        summary.metrics = {n: aggregate_metric(rs, n) for n in names}
        summaries[engine] = summary
    return summaries


def worst(results: list[CaseResult], metric: str = "cer", count: int = 5) -> list[CaseResult]:
    """The cases doing worst on a metric (by its direction), errors excluded."""
    scored = [r for r in results if r.metrics.get(metric) is not None]
    higher_is_worse = METRICS[metric].better == "lower"
    scored.sort(key=lambda r: (-r.metrics[metric] if higher_is_worse else r.metrics[metric], r.id))
    return scored[:count]
