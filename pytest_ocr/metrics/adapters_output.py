"""The computations of the metrics of the engine output itself and of the case's other
inputs: fields, JSON/XML and JSON Schema, repetition loops, tokens, downstream tasks, checks.

The catalogue (registry.py) finds them by name in ``COMPUTE``.
"""

from __future__ import annotations

from collections.abc import Callable

from . import fields, repetition, structured, task, tokens
from .prepared import MetricResult, Prepared
from .values import checks_passed_value, repetition_value


def _field_metric(value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        f = p.field_scores
        counts: dict[str, float] = dict(f.counts)
        return MetricResult(value(counts), counts, {"unit": "field", **f.details()})

    return compute


def _completeness(p: Prepared) -> MetricResult:
    c = p.completeness
    counts: dict[str, float] = dict(c.counts)
    return MetricResult(fields.completeness_value(counts), counts, {"unit": "field", **c.details()})


def _validity(check: Callable[[Prepared], tuple[bool, dict]]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        valid, details = check(p)
        counts: dict[str, float] = {"valid": 1 if valid else 0, "outputs": 1}
        return MetricResult(structured.valid_rate(counts), counts, {"unit": "output", **details})

    return compute


def _json_valid(p: Prepared) -> tuple[bool, dict]:
    return p.json_output.valid, {"parsing_error": p.json_output.error, "fenced": p.json_output.fenced}


def _schema_valid(p: Prepared) -> tuple[bool, dict]:
    return p.schema_check.valid, p.schema_check.details()


def _xml_valid(p: Prepared) -> tuple[bool, dict]:
    return p.xml_output.valid, {"parsing_error": p.xml_output.error, "fenced": p.xml_output.fenced}


def _repetition(p: Prepared) -> MetricResult:
    loop = repetition.find_repetition(p.raw_hypothesis)
    counts: dict[str, float] = {
        "redundant": loop.redundant_chars if loop else 0,
        "characters": len(p.raw_hypothesis.rstrip()),
    }
    details: dict[str, object] = {"unit": "codepoint"}
    if loop:
        details.update(loop_unit=loop.unit, repeats=loop.repeats, start=loop.start)
    return MetricResult(repetition_value(counts), counts, details)


def _token_counts(t: tokens.TokenCounts) -> dict[str, dict]:
    return {
        "total_tokens": {"tokens": t.total, "outputs": 1},
        "meaningful_tokens": {"tokens": t.meaningful, "outputs": 1},
        "token_density": {"meaningful_tokens": t.meaningful, "total_tokens": t.total},
        "compression_ratio": {"cleaned_tokens": t.cleaned, "total_tokens": t.total},
        "chars_per_token": {"characters": t.characters, "total_tokens": t.total},
        "estimated_cost_usd": {"cost_usd": t.cost_usd, "outputs": 1},
    }


def _tokenizer_metric(name: str, value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        counts = _token_counts(p.token_counts)[name]
        return MetricResult(value(counts), counts, {"unit": "token", **p.token_counts.details()})

    return compute


def _task_metric(value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        outcome = p.task_outcome
        counts: dict[str, float] = {"successes": 1 if outcome.success else 0, "quality": outcome.quality, "tasks": 1}
        return MetricResult(value(counts), counts, {"unit": "task", **outcome.details()})

    return compute


def _checks_passed(p: Prepared) -> MetricResult:
    verdicts = p._need("checks", p.structured.facts)
    counts: dict[str, float] = {"passed": sum(v.passed for v in verdicts), "facts": len(verdicts)}
    return MetricResult(checks_passed_value(counts), counts, {"unit": "fact"})


COMPUTE: dict[str, Callable[[Prepared], MetricResult]] = {
    "field_precision": _field_metric(fields.precision),
    "field_recall": _field_metric(fields.recall),
    "field_f1": _field_metric(fields.f1),
    "field_completeness": _completeness,
    "json_valid": _validity(_json_valid),
    "schema_valid": _validity(_schema_valid),
    "xml_valid": _validity(_xml_valid),
    "repetition": _repetition,
    "total_tokens": _tokenizer_metric("total_tokens", tokens.per_output("tokens")),
    "meaningful_tokens": _tokenizer_metric("meaningful_tokens", tokens.per_output("tokens")),
    "token_density": _tokenizer_metric("token_density", tokens.token_density),
    "compression_ratio": _tokenizer_metric("compression_ratio", tokens.compression_ratio),
    "chars_per_token": _tokenizer_metric("chars_per_token", tokens.chars_per_token),
    "estimated_cost_usd": _tokenizer_metric("estimated_cost_usd", tokens.per_output("cost_usd")),
    "task_success": _task_metric(task.success_rate),
    "task_quality": _task_metric(task.mean_quality),
    "checks_passed": _checks_passed,
}
