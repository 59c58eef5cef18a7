"""Aggregates of a run's results: per engine, and per tag and group within it; and the
accounting of each dataset file.

Macro is the mean of the items' values; micro is the metric's own formula over the
items' counts summed (the metric registry's ``pooled``), so micro CER is total errors
over total reference length. Both are always labelled.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cases.model import DatasetInfo
from ..codec import Coded, encode
from ..metrics import METRICS, pooled
from ..metrics.omnidocbench.overall import Overall, overall
from ..scoring.facts import UNCATEGORISED
from .omnidocbench import omnidocbench_tables
from .result import CaseResult

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_BLOCK = 1_000_000  # resampled values held at once: 4 MB of indices
BOOTSTRAP_GATHERED = 131_072  # of them gathered at once: 1 MB of values
BOOTSTRAP_SEED = 20201  # fixed: the same results give the same interval, run after run
TOP_CONFUSIONS = 10
HEADLINE_METRICS = ("cer", "wer")  # shown in every summary and compared with every baseline


@dataclass
class MetricAggregate:
    macro: float | None  # mean over items
    micro: float | None  # the metric's formula over counts summed across items
    n: int  # items that have this metric
    ci95: list[float] | None = None  # percentile bootstrap interval of the macro mean


@dataclass
class Performance:
    """The engine's speed on the outputs it produced in this run (cached ones are not
    timed): pages per second of engine time (summed over workers), mean and
    95th-percentile time per page (nearest rank)."""

    pages: int = 0
    pages_per_s: float | None = None
    mean_s: float | None = None
    p95_s: float | None = None


@dataclass
class Stability:
    """How alike repeated recognitions of an engine's items were (scoring/repeats.py):
    items recognised more than once, how many gave one output every time, the mean share
    of identical outputs and the mean CER between repeats over those items."""

    items: int = 0
    stable: int = 0
    unstable: int = 0
    identical: float | None = None
    pairwise_cer: float | None = None


@dataclass
class FactSummary:
    """The facts (checks) of an engine's items, counted as olmOCR-Bench counts them: a
    fact holds when it held in more than half of an item's outputs; an item that has no
    output (an error) holds none of its facts. The score is the mean over categories of
    the share of their facts that hold, its interval a percentile bootstrap that
    resamples facts within each category; per type, the mean share of outputs each fact
    held in."""

    facts: int = 0
    passed: int = 0
    score: float | None = None
    ci95: list[float] | None = None
    categories: dict[str, list[int]] = field(default_factory=dict)  # category -> [held, facts]
    types: dict[str, list[float]] = field(default_factory=dict)  # type -> [mean share of outputs, facts]


@dataclass
class Summary(Coded):
    name: str
    cases: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    filtered: int = 0
    skipped: int = 0
    cached: int = 0
    metrics: dict[str, MetricAggregate] = field(default_factory=dict)
    top_confusions: list[list[Any]] = field(default_factory=list)  # [reference, recognized, count]
    groups: dict[str, Summary] = field(default_factory=dict)  # "tag:NAME" / "group:NAME"
    performance: Performance = field(default_factory=Performance)
    stability: Stability | None = None  # with repeats only
    facts: FactSummary | None = None  # items with checks only
    # OmniDocBench's page and group results (run/omnidocbench.py); an engine's, with its metrics only
    omnidocbench: dict[str, Any] | None = None
    # OmniDocBench's Overall, with odb_formula_cdm only
    omnidocbench_overall: Overall | None = None

    def to_dict(self) -> dict[str, Any]:
        data = encode(self)
        for name in ("omnidocbench", "omnidocbench_overall"):  # a report without them is as it was
            if data[name] is None:
                del data[name]
        return data


def fact_summary(results: Iterable[CaseResult]) -> FactSummary | None:
    held: dict[str, list[float]] = defaultdict(list)  # category -> 1.0 / 0.0 per fact
    types: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for f in r.facts or ():
            held[f.category or UNCATEGORISED].append(1.0 if f.passed else 0.0)
            types[f.type].append(f.passes / f.runs)
    if not held:
        return None
    categories = {c: [int(sum(v)), len(v)] for c, v in sorted(held.items())}
    return FactSummary(
        facts=sum(n for _, n in categories.values()),
        passed=sum(k for k, _ in categories.values()),
        score=math.fsum(k / n for k, n in categories.values()) / len(categories),
        ci95=_stratified_ci([np.asarray(held[c]) for c in categories]),
        categories=categories,
        types={t: [math.fsum(v) / len(v), len(v)] for t, v in sorted(types.items())},
    )


def _stratified_ci(strata: list[np.ndarray]) -> list[float] | None:
    """95% percentile bootstrap interval of the mean of the strata's means, each stratum
    resampled on its own (olmOCR-Bench's interval of its score, with a fixed seed)."""
    if sum(len(s) for s in strata) < 2:
        return None
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    means = np.mean([_resampled_means(s, rng) for s in strata], axis=0)
    low, high = np.percentile(means, [2.5, 97.5])
    return [float(low), float(high)]


def _resampled_means(data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """BOOTSTRAP_RESAMPLES means of ``data`` resampled with replacement, drawn in blocks of
    rows (all at once, 200,000 values would take 1.6 GB of indices). The generator's
    stream continues across blocks, so the means are those of one draw. The values are
    gathered a few rows at a time (each row's mean is its own): gathered for a whole block
    they took as much memory again as its indices (8 MB at the end of a large run).
    ``data`` is one sample, or several of one length as the rows of a matrix: each resampled
    with the same indices, its means a row of the result."""
    samples = data.reshape(-1, data.shape[-1])
    size = samples.shape[1]
    rows = max(1, BOOTSTRAP_BLOCK // size)
    # 32-bit indices, half the memory: numpy draws integers below 2**32 from one bounded
    # 32-bit generator whatever the type it returns, so the stream is the same.
    kind = np.int32 if size < 2**31 else np.int64
    means: list[list[np.ndarray]] = [[] for _ in samples]
    for start in range(0, BOOTSTRAP_RESAMPLES, rows):  # a block's indices are gone before the next is drawn
        indices = rng.integers(0, size, size=(min(rows, BOOTSTRAP_RESAMPLES - start), size), dtype=kind)
        for sample, found in zip(samples, means, strict=True):
            found += _row_means(sample, indices)
    return np.concatenate(means[0]) if data.ndim == 1 else np.array([np.concatenate(m) for m in means])


def _row_means(data: np.ndarray, indices: np.ndarray) -> list[np.ndarray]:
    gathered = max(1, BOOTSTRAP_GATHERED // len(data))
    return [data[indices[row : row + gathered]].mean(axis=1) for row in range(0, len(indices), gathered)]


def bootstrap_cis(samples: Sequence[Sequence[float]]) -> list[list[float] | None]:
    """The 95% percentile bootstrap interval of each sample's mean (None for fewer than two
    values). Every sample's resampling starts from the same seed, so samples of one length
    draw the same indices: they are drawn once for all of them (the draws took most of the
    time of a run's intervals, one set for each metric)."""
    found: list[list[float] | None] = [None] * len(samples)
    by_length: dict[int, list[int]] = defaultdict(list)
    for i, sample in enumerate(samples):
        if len(sample) >= 2:
            by_length[len(sample)].append(i)
    for members in by_length.values():
        data = np.asarray([samples[i] for i in members], dtype=float)
        means = _resampled_means(data, np.random.default_rng(BOOTSTRAP_SEED))
        for i, row in zip(members, means, strict=True):
            low, high = np.percentile(row, [2.5, 97.5])
            found[i] = [float(low), float(high)]
    return found


def bootstrap_ci(values: Sequence[float]) -> list[float] | None:
    """95% percentile bootstrap interval of the mean; None for fewer than two values."""
    return bootstrap_cis([values])[0]


def aggregate_metrics(results: Iterable[CaseResult], names: Sequence[str]) -> dict[str, MetricAggregate]:
    """Each metric's macro and micro averages and the macro's interval, the same whatever
    order the results came in (a pytest-xdist run's arrival order): taken in key order,
    counts summed exactly (repeats' mean counts are fractions). One metric's counts at a
    time (at the end of a large run, memory is at its peak); the intervals together."""
    ordered = sorted(results, key=lambda r: r.key)
    found: dict[str, MetricAggregate] = {}
    samples: list[list[float]] = []
    for name in dict.fromkeys(names):  # each once
        values: list[float] = []
        counts: dict[str, list[float]] = defaultdict(list)
        for r in ordered:
            value = r.metrics.get(name)
            if value is None:
                continue
            values.append(value)
            for key, count in r.details.get(name, {}).get("counts", {}).items():
                counts[key].append(count)
        totals = {key: math.fsum(c) for key, c in counts.items()}
        found[name] = MetricAggregate(
            macro=math.fsum(values) / len(values) if values else None,
            micro=pooled(name, totals) if values and name in METRICS and totals else None,
            n=len(values),
        )
        samples.append(values)
    for aggregate, interval in zip(found.values(), bootstrap_cis(samples), strict=True):
        aggregate.ci95 = interval
    return found


def aggregate_metric(results: Iterable[CaseResult], name: str) -> MetricAggregate:
    """One metric's ``aggregate_metrics``."""
    return aggregate_metrics(results, [name])[name]


def top_confusions(results: Iterable[CaseResult], count: int = TOP_CONFUSIONS) -> list[list[Any]]:
    """The most frequent character confusions over the items, from their CER details."""
    table: Counter[tuple[str, str]] = Counter()
    for r in results:
        for ref, hyp, n in r.details.get("cer", {}).get("confusions", ()):
            table[ref, hyp] += n
    return [[ref, hyp, n] for (ref, hyp), n in sorted(table.items(), key=lambda item: (-item[1], item[0]))[:count]]


def metric_order(name: str) -> tuple[int, str]:
    """Metrics in the registry's order, unknown ones after them by name."""
    return (list(METRICS).index(name) if name in METRICS else len(METRICS), name)


def performance(results: Iterable[CaseResult]) -> Performance:
    times = sorted(r.inference_s for r in results if r.inference_s is not None and not r.cached)
    if not times:
        return Performance()
    total = math.fsum(times)
    return Performance(
        len(times),
        len(times) / total if total > 0 else None,
        total / len(times),
        times[math.ceil(0.95 * len(times)) - 1],
    )


def stability(results: Iterable[CaseResult]) -> Stability | None:
    repeated = [r.repeats for r in results if r.repeats]
    if not repeated:
        return None
    unstable = sum(bool(r["unstable"]) for r in repeated)
    cers = [r["pairwise_cer"] for r in repeated if r.get("pairwise_cer") is not None]
    return Stability(
        len(repeated),
        len(repeated) - unstable,
        unstable,
        math.fsum(r["identical"] for r in repeated) / len(repeated),
        math.fsum(cers) / len(cers) if cers else None,
    )


def summarize_group(name: str, results: Sequence[CaseResult]) -> Summary:
    counts = Counter(r.outcome for r in results)
    names = sorted({n for r in results for n in r.metrics}, key=metric_order)
    metrics = aggregate_metrics(results, names)
    return Summary(
        name,
        cases=len(results),
        passed=counts["passed"],
        failed=counts["failed"],
        errors=counts["error"],
        filtered=counts["filtered"],
        skipped=counts["skipped"],
        cached=sum(r.cached for r in results),
        metrics=metrics,
        top_confusions=top_confusions(results),
        performance=performance(results),
        stability=stability(results),
        facts=fact_summary(results),
        omnidocbench_overall=omnidocbench_overall(metrics),
    )


def omnidocbench_overall(metrics: dict[str, MetricAggregate]) -> Overall | None:
    """OmniDocBench's Overall of these macros, when CDM was computed and some page has text (its notebook's
    Overall is NaN otherwise)."""
    text = metrics.get("odb_text_edit")
    if "odb_formula_cdm" not in metrics or text is None or text.macro is None:
        return None
    teds = metrics.get("odb_table_teds")
    return overall(text.macro, metrics["odb_formula_cdm"].macro, teds.macro if teds else None)


def summarize(results: Iterable[CaseResult]) -> dict[str, Summary]:
    """Per engine (sorted): counts, macro/micro/CI of every metric computed, top
    confusions, speed, and the same per tag and per group. Results of case files that
    could not be loaded belong to no engine."""
    by_engine: dict[str, list[CaseResult]] = defaultdict(list)
    every = sorted(results, key=lambda r: r.key)  # the bootstrap depends on order
    for r in every:
        if r.engine is not None:
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
        summary.omnidocbench = omnidocbench_tables(rs, every)
        summaries[engine] = summary
    return summaries


def worst(results: Iterable[CaseResult], metric: str = "cer", count: int = 5) -> list[CaseResult]:
    """The items doing worst on a metric (by its direction), worst first."""
    info = METRICS[metric]
    scored = [r for r in results if r.metrics.get(metric) is not None]
    scored.sort(key=lambda r: (info.worst_first(r.metrics[metric]), r.key))  # type: ignore[arg-type]
    return scored[:count]


@dataclass
class DatasetSummary(Coded):
    """The dataset evaluator's accounting of one dataset file on one engine: total =
    evaluated + filtered + skipped (entries the adapter could not use, and items that
    errored); exact-match accuracy, normalised edit distance and its similarity (means
    over the evaluated items); wall-clock time from the first item's start to the last
    one's end, and the items' own times summed over workers; the mean engine time per
    image over the outputs produced in this run (not from the cache)."""

    file: str
    type: str
    engine: str
    total: int
    evaluated: int
    filtered: int
    skipped: int
    skipped_entries: list[dict[str, Any]]
    accuracy: float | None
    ned: float | None
    ned_similarity: float | None
    wall_s: float
    item_time_s: float
    inference_mean_ms: float | None
    allow_empty: bool = False  # the suite accepts a run that evaluates nothing of it


def dataset_summaries(datasets: Iterable[DatasetInfo], results: Iterable[CaseResult]) -> list[DatasetSummary]:
    by_file: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        if r.engine is not None:
            by_file[r.file].append(r)
    summaries = []
    for dataset in sorted(datasets, key=lambda d: d.file):
        mine = by_file.get(dataset.file, [])
        for engine in sorted({r.engine for r in mine if r.engine is not None}):
            rs = [r for r in mine if r.engine == engine]
            evaluated = [r for r in rs if r.measured]
            filtered = sum(r.outcome == "filtered" for r in rs)
            errors = sum(r.outcome in ("error", "skipped") for r in rs)
            inference = [r.inference_s for r in rs if r.inference_s is not None and not r.cached]
            spans = [(r.started, r.started + r.duration_s) for r in rs if r.started is not None]
            ned = aggregate_metric(evaluated, "ned").macro
            summaries.append(
                DatasetSummary(
                    file=dataset.file,
                    type=dataset.type,
                    engine=engine,
                    total=len(evaluated) + filtered + dataset.skipped_count + errors,
                    evaluated=len(evaluated),
                    filtered=filtered,
                    skipped=dataset.skipped_count + errors,
                    skipped_entries=[s.to_dict() for s in dataset.skipped],
                    accuracy=aggregate_metric(evaluated, "exact_match").macro,
                    ned=ned,
                    ned_similarity=None if ned is None else 1.0 - ned,
                    wall_s=max(end for _, end in spans) - min(start for start, _ in spans) if spans else 0.0,
                    item_time_s=math.fsum(r.duration_s for r in rs),
                    inference_mean_ms=1000 * math.fsum(inference) / len(inference) if inference else None,
                    allow_empty=dataset.allow_empty,
                )
            )
    return summaries
