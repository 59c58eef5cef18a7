"""Scoring one output of one case: key fields and the task's result got from it, every
metric that applies computed, each threshold judged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cases.inputs import Inputs
from ..cases.model import Case
from ..engines import Recognition
from ..metrics import MetricResult, Structured, metrics_for, score
from ..metrics.facts import FactVerdict
from ..metrics.prepared import NO_STRUCTURE
from ..metrics.repetition import describe as describe_loop
from ..metrics.repetition import find_repetition
from . import facts
from .extract import Extracted, fields_from_output, task_result
from .thresholds import Check, judge, not_applicable


def extract(case: Case, recognition: Recognition) -> Extracted:
    """Fields (and the task's result) from the output; raises ExtractionError."""
    fields, source = fields_from_output(case.extract, recognition.text, recognition.fields, case.file.parent)
    result = task_result(case.task, recognition.text, fields, case.file.parent) if case.task else None
    return Extracted(fields, source, result)


def metric_names(case: Case, looping: bool = False) -> list[str]:
    """The metrics this case computes (the registry decides): the defaults of its inputs,
    the ones it asks for, those it has a threshold or a tolerance on; ``repetition`` too
    when the output loops."""
    requested = [*case.metrics, *(t.metric for t in case.thresholds), *case.regression]
    return metrics_for(case.inputs, [*(["repetition"] if looping else []), *requested])


@dataclass(frozen=True)
class Evaluation:
    """What one output scored, and each threshold's check."""

    metrics: dict[str, float | None]  # None: the metric does not apply to the case (its details say why)
    details: dict[str, dict[str, Any]]
    checks: list[Check]
    warnings: list[str]
    facts: tuple[FactVerdict, ...] = ()  # the verdict of each of the case's checks, in order


def _structured(case: Case, inputs: Inputs, extracted: Extracted, verdicts: tuple[FactVerdict, ...]) -> Structured:
    given = (inputs.fields, inputs.schema, case.task, extracted.fields, inputs.layout)
    if not case.match and not case.tokens and not case.checks and all(value is None for value in given):
        return NO_STRUCTURE  # a text case (most of them), without building and checking one
    task = None
    if case.task is not None:
        expected = case.task.get("expected", inputs.fields)
        task = {
            "type": case.task["type"],
            "expected": expected,
            "result": extracted.task_result,
            "min_quality": case.task.get("min_quality"),
        }
    return Structured(
        expected_fields=inputs.fields,
        extracted_fields=extracted.fields,
        field_match=dict(case.match),
        schema=inputs.schema,  # type: ignore[arg-type]
        task=task,
        facts=verdicts if case.checks else None,
        layout=inputs.layout,
        **case.tokens,
    )


def evaluate(case: Case, inputs: Inputs, recognition: Recognition, extracted: Extracted) -> Evaluation:
    loop = find_repetition(recognition.text)
    verdicts = facts.run(case, recognition.text) if case.checks else ()
    scores: dict[str, MetricResult] = score(
        inputs.reference or "",
        recognition.text,
        metric_names(case, loop is not None),
        case.normalization,
        case.cer_denominator,
        structured=_structured(case, inputs, extracted, verdicts),
        empty_reference_value=case.empty_reference_value,
    )
    # One pass over the scores (this runs for every item): values, details, and what the warnings need.
    values: dict[str, float | None] = {}
    details: dict[str, dict[str, Any]] = {}
    served: dict[str, list[str]] = {}  # a cheaper path a long output made the metrics take -> the metrics
    compared: dict[str, None] = {}  # the field metrics share one comparison: its warnings once
    for name, s in scores.items():
        values[name] = s.value
        # the counts travel with each value so aggregation can pool them (micro)
        details[name] = {**s.details, "counts": s.counts}
        for key in ("alignment", "tokenization"):  # the details keys of a cheaper path
            if how := s.details.get(key):
                served.setdefault(how, []).append(name)
        if said := s.details.get("warnings"):
            compared.update(dict.fromkeys(said))
    warnings = list(recognition.warnings)
    if loop is not None:
        warnings.append(describe_loop(loop))
    # One warning per cheaper path, naming the metrics it served: their values are bounds,
    # not exact (docs/how-to/troubleshooting.md, "When something is wrong").
    warnings.extend(f"{', '.join(names)}: {how}" for how, names in served.items())
    warnings.extend(compared)
    return Evaluation(
        metrics=values,
        details=details,
        checks=judge(case.thresholds, values, not_applicable(values, details)),
        warnings=warnings,
        facts=verdicts,
    )
