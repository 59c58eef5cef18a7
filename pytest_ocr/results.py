"""Per-item results (plain, JSON-safe) and their aggregation per engine."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from .metrics import METRICS, pooled

OUTCOMES = ("passed", "failed", "error", "filtered")


@dataclass
class CaseResult:
    """One case × engine, as it travels on the test report and lands in reports."""

    id: str  # pytest node id
    case: str
    file: str
    line: int
    engine: str
    image: str
    outcome: str  # passed | failed | error | filtered (confidence below a dataset's threshold: not evaluated)
    tags: list[str] = field(default_factory=list)
    group: str | None = None
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
    cached: bool = False  # the output came from the cache (inference_s is the original run's)
    fingerprint: dict | None = None  # the engine's; reports keep it once per engine
    fields: dict | None = None  # key fields got from the output
    fields_source: str | None = None  # extract | engine | json | none
    warnings: list[str] = field(default_factory=list)
    baseline: dict | None = None  # the comparison with --ocr-baseline: status, deltas, regressed

    def to_dict(self) -> dict:
        # Fields already hold plain values; a shallow copy avoids asdict's deep copy.
        return json_safe({name: getattr(self, name) for name in self.__dataclass_fields__})

    @classmethod
    def from_dict(cls, data: dict) -> CaseResult:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def json_safe(value):
    """Replace NaN and infinities (which standard JSON cannot hold) with None."""
    try:
        # The usual case, nothing to replace, checked at C speed rather than by a walk in Python.
        json.dumps(value, allow_nan=False)
        return value
    except (ValueError, TypeError):
        return _replace_non_finite(value)


def _replace_non_finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _replace_non_finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replace_non_finite(v) for v in value]
    return value


BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20201  # fixed: the same results give the same interval, run after run
TOP_CONFUSIONS = 10


@dataclass
class MetricAggregate:
    macro: float | None  # mean over cases
    micro: float | None  # the metric's formula over counts summed across cases
    n: int  # cases that have this metric
    ci95: list[float] | None = None  # percentile bootstrap interval of the macro mean


@dataclass
class Summary:
    name: str
    cases: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    filtered: int = 0
    metrics: dict[str, MetricAggregate] = field(default_factory=dict)
    top_confusions: list[list] = field(default_factory=list)  # [reference, recognized, count]
    groups: dict[str, Summary] = field(default_factory=dict)  # "tag:NAME" / "group:NAME"
    performance: dict = field(default_factory=dict)  # engine time of the outputs not from the cache


def bootstrap_ci(values: list[float]) -> list[float] | None:
    """95% percentile bootstrap interval of the mean; None for fewer than two values."""
    if len(values) < 2:
        return None
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    means = data[rng.integers(0, len(data), size=(BOOTSTRAP_RESAMPLES, len(data)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return [float(low), float(high)]


def aggregate_metric(results: list[CaseResult], name: str) -> MetricAggregate:
    values = [r.metrics[name] for r in results if r.metrics.get(name) is not None]
    counts: dict[str, float] = defaultdict(float)
    for r in results:
        for key, count in r.details.get(name, {}).get("counts", {}).items():
            counts[key] += count
    return MetricAggregate(
        macro=math.fsum(values) / len(values) if values else None,
        micro=pooled(name, counts) if values and name in METRICS and counts else None,
        n=len(values),
        ci95=bootstrap_ci(values),
    )


def top_confusions(results: list[CaseResult], count: int = TOP_CONFUSIONS) -> list[list]:
    """The most frequent character confusions over the cases, from their CER details."""
    table: Counter = Counter()
    for r in results:
        for ref, hyp, n in r.details.get("cer", {}).get("confusions", ()):
            table[ref, hyp] += n
    return [[ref, hyp, n] for (ref, hyp), n in sorted(table.items(), key=lambda item: (-item[1], item[0]))[:count]]


def _metric_order(name: str) -> tuple:
    return (list(METRICS).index(name) if name in METRICS else len(METRICS), name)


def summarize_group(name: str, results: list[CaseResult]) -> Summary:
    summary = Summary(name, cases=len(results))
    summary.passed = sum(r.outcome == "passed" for r in results)
    summary.failed = sum(r.outcome == "failed" for r in results)
    summary.errors = sum(r.outcome == "error" for r in results)
    summary.filtered = sum(r.outcome == "filtered" for r in results)
    names = sorted({n for r in results for n in r.metrics}, key=_metric_order)
    summary.metrics = {n: aggregate_metric(results, n) for n in names}
    summary.top_confusions = top_confusions(results)
    summary.performance = performance(results)
    return summary


def performance(results: list[CaseResult]) -> dict:
    """How fast the engine was on the outputs it produced in this run (cached ones are
    the earlier run's): pages per second of engine time, mean and 95th-percentile time
    per page (nearest-rank)."""
    times = sorted(r.inference_s for r in results if r.inference_s is not None and not r.cached)
    if not times:
        return {"pages": 0, "pages_per_s": None, "mean_s": None, "p95_s": None}
    total = math.fsum(times)
    return {
        "pages": len(times),
        "pages_per_s": len(times) / total if total > 0 else None,
        "mean_s": total / len(times),
        "p95_s": times[math.ceil(0.95 * len(times)) - 1],
    }


def summarize(results: list[CaseResult]) -> dict[str, Summary]:
    """Per engine: counts, macro/micro/CI of every metric computed, top confusions,
    and the same per tag and per group."""
    results = sorted(results, key=lambda r: r.id)  # the bootstrap depends on order
    by_engine: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_engine[r.engine].append(r)
    summaries = {}
    for engine in sorted(by_engine):
        rs = by_engine[engine]
        summary = summarize_group(engine, rs)
        members: dict[str, list[CaseResult]] = defaultdict(list)
        for r in rs:
            for tag in r.tags:
                members[f"tag:{tag}"].append(r)
            if r.group:
                members[f"group:{r.group}"].append(r)
        summary.groups = {key: summarize_group(key, members[key]) for key in sorted(members)}
        summaries[engine] = summary
    return summaries
def worst(results: list[CaseResult], metric: str = "cer", count: int = 5) -> list[CaseResult]:
    """The cases doing worst on a metric (by its direction), errors excluded."""
    scored = [r for r in results if r.metrics.get(metric) is not None]
    higher_is_worse = METRICS[metric].better == "lower"
    scored.sort(key=lambda r: (-r.metrics[metric] if higher_is_worse else r.metrics[metric], r.id))
    return scored[:count]


def dataset_summaries(datasets: list[dict], results: list[CaseResult]) -> list[dict]:
    """Per dataset file and engine, the dataset evaluator's accounting: total = evaluated
    + filtered + skipped (entries the adapter could not use, and items that errored),
    exact-match accuracy, normalised edit distance and its similarity (means over the
    evaluated items), the evaluation's time and the mean inference time per image."""
    summaries = []
    for dataset in sorted(datasets, key=lambda d: d["file"]):
        mine = [r for r in results if r.file == dataset["file"]]
        for engine in sorted({r.engine for r in mine}):
            rs = [r for r in mine if r.engine == engine]
            evaluated = [r for r in rs if r.outcome in ("passed", "failed")]
            filtered = sum(r.outcome == "filtered" for r in rs)
            errors = sum(r.outcome == "error" for r in rs)
            skipped = dataset["skipped_count"] + errors
            inference = [r.inference_s for r in rs if r.inference_s is not None]
            ned = aggregate_metric(evaluated, "ned").macro
            summaries.append({
                "file": dataset["file"],
                "type": dataset["type"],
                "engine": engine,
                "total": len(evaluated) + filtered + skipped,
                "evaluated": len(evaluated),
                "filtered": filtered,
                "skipped": skipped,
                "skipped_entries": dataset["skipped"],
                "accuracy": aggregate_metric(evaluated, "exact_match").macro,
                "ned": ned,
                "ned_similarity": None if ned is None else 1.0 - ned,
                "evaluation_s": math.fsum(r.duration_s for r in rs),
                "inference_mean_ms": 1000 * math.fsum(inference) / len(inference) if inference else None,
            })
    return summaries
