"""Running one case on one engine: inputs checked, engine called, output scored.

Plain functions; the pytest item in plugin.py only sequences them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from .cases.model import Case
from .cache import OutputCache, cacheable
from .cases.document import SafeLoader
from .engines import Engine, Recognition
from .extract import Extracted, fields_from_output, task_result
from .images import check_image
from .metrics import DEFAULT_METRICS, MetricResult, Structured, score
from .metrics.repetition import describe as describe_loop
from .metrics.repetition import find_repetition
from .metrics.structured import check_schema
from .thresholds import Check, judge


class CaseInputError(Exception):
    """The case's own inputs (image, ground truth file) are unusable."""


FIELD_METRICS = ("field_precision", "field_recall", "field_f1")
SCHEMA_METRICS = ("json_valid", "schema_valid", "field_completeness")
TASK_METRICS = ("task_success", "task_quality")


def _read(path: Path, what: str, case: Case) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CaseInputError(f"{what} not found: {path} (case {case.id} at {case.location})") from None
    except UnicodeDecodeError as exc:
        raise CaseInputError(
            f"{what} is not UTF-8: {path} ({exc.reason} at byte {exc.start}); "
            f"re-encode it as UTF-8 (case {case.id} at {case.location})"
        ) from None


def _read_data(path: Path, what: str, case: Case) -> object:
    """A JSON or YAML file (YAML is a superset of JSON; safe loader only)."""
    text = _read(path, what, case)
    try:
        return yaml.load(text, Loader=SafeLoader)
    except yaml.YAMLError as exc:
        raise CaseInputError(f"{what} is not valid JSON or YAML: {path}: {exc} (case {case.id} at {case.location})") \
            from None


@dataclass
class Inputs:
    """What a case compares against, read when its item runs (so one bad file fails one item)."""

    reference: str | None
    fields: dict | None
    schema: dict | bool | None


def read_inputs(case: Case) -> Inputs:
    reference = case.expected_text
    if case.expected_text_file is not None:
        reference = _read(case.expected_text_file, "ground truth file", case)
    fields = case.expected_fields
    if case.expected_fields_file is not None:
        fields = _read_data(case.expected_fields_file, "fields file", case)
        if not isinstance(fields, dict) or not fields:
            raise CaseInputError(f"fields file {case.expected_fields_file} must hold a non-empty mapping of "
                                 f"field names to values (case {case.id} at {case.location})")
    schema = case.schema
    if case.schema_file is not None:
        schema = _read_data(case.schema_file, "schema file", case)
        problems = check_schema(schema) if isinstance(schema, (dict, bool)) else ["not a mapping"]
        if problems:
            raise CaseInputError(f"schema file {case.schema_file} is not a valid JSON Schema: {problems[0]} "
                                 f"(case {case.id} at {case.location})")
    return Inputs(reference, fields, schema)


def check_inputs(case: Case) -> Inputs:
    """Check the image and read what the output is compared against; raises CaseInputError."""
    try:
        check_image(case.image)
    except Exception as exc:
        raise CaseInputError(f"{exc} (case {case.id} at {case.location})") from None
    return read_inputs(case)


@dataclass
class Timed:
    recognition: Recognition
    seconds: float  # the engine's time, also for an output from the cache
    cached: bool = False


def recognize(engine: Engine, case: Case, cache: OutputCache | None = None, fingerprint: dict | None = None,
              refresh: bool = False) -> Timed:
    """The engine's output for the case's image: from the cache when it has it (unless
    ``refresh``), else from the engine, and then stored."""
    key = None
    if cache is not None and fingerprint is not None and cacheable(engine):
        try:
            key = cache.key(case.image, fingerprint)
        except OSError:
            key = None  # the engine will say what is wrong with the image
        hit = cache.get(key) if key is not None and not refresh else None
        if hit is not None:
            return Timed(hit.recognition, hit.seconds, cached=True)
    start = time.perf_counter()
    recognition = engine.recognize(case.image)
    timed = Timed(recognition, time.perf_counter() - start)
    if key is not None:
        cache.put(key, recognition, timed.seconds)
    return timed


def filtered_reason(case: Case, recognition: Recognition) -> str | None:
    """Why an output is left out of the evaluation (a dataset's ``conf_threshold``): the
    engine's confidence is below the case's minimum. An engine that reports no
    confidence is never filtered."""
    minimum = case.min_confidence
    if minimum is None or recognition.confidence is None or recognition.confidence >= minimum:
        return None
    return f"filtered: confidence {recognition.confidence:.4f} is below {minimum} (conf_threshold)"


def metric_names(case: Case, looping: bool = False) -> list[str]:
    """The metrics every case with such inputs gets, the ones the case asks for, and every
    metric it has a threshold or a regression tolerance on; ``repetition`` too when the
    output loops."""
    names: list[str] = []
    if case.has_reference_text:
        names += DEFAULT_METRICS
    if case.has_fields:
        names += FIELD_METRICS
    if case.has_schema:
        names += SCHEMA_METRICS
    if case.task is not None:
        names += TASK_METRICS
    if looping:
        names.append("repetition")
    return list(dict.fromkeys([*names, *case.metrics, *(t.metric for t in case.thresholds), *case.regression]))


def extract(case: Case, recognition: Recognition) -> Extracted:
    """Fields (and the task's result) from the output; raises ExtractionError."""
    fields, source = fields_from_output(case.extract, recognition.text, recognition.fields, case.file.parent)
    result = task_result(case.task, recognition.text, fields, case.file.parent) if case.task else None
    return Extracted(fields, source, result)


@dataclass
class Evaluation:
    """Scores and threshold checks of one recognition, in the shape CaseResult stores."""

    metrics: dict[str, float]
    details: dict[str, dict]
    checks: list[Check]
    extracted: Extracted
    warnings: list[str]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def result_fields(self) -> dict:
        return {
            "outcome": "passed" if self.passed else "failed",
            "metrics": self.metrics,
            "details": self.details,
            "checks": [{"metric": c.threshold.metric, "expression": c.threshold.expression,
                        "value": c.value, "passed": c.passed} for c in self.checks],
            "fields": self.extracted.fields,
            "fields_source": self.extracted.source,
            "warnings": self.warnings,
        }


def structured_inputs(case: Case, inputs: Inputs, extracted: Extracted) -> Structured:
    task = None
    if case.task is not None:
        expected = case.task.get("expected", inputs.fields)
        task = {"type": case.task["type"], "expected": expected, "result": extracted.task_result,
                "min_quality": case.task.get("min_quality")}
    return Structured(
        expected_fields=inputs.fields,
        extracted_fields=extracted.fields,
        field_match=dict(case.match),
        schema=inputs.schema,
        task=task,
        **case.tokens,
    )


def evaluate(case: Case, inputs: Inputs, recognition: Recognition, extracted: Extracted) -> Evaluation:
    loop = find_repetition(recognition.text)
    scores: dict[str, MetricResult] = score(
        inputs.reference or "", recognition.text, metric_names(case, loop is not None), case.normalization,
        case.cer_denominator, structured=structured_inputs(case, inputs, extracted),
    )
    values = {name: s.value for name, s in scores.items()}
    warnings = list(recognition.warnings)
    if loop is not None:
        warnings.append(describe_loop(loop))
    return Evaluation(
        metrics=values,
        # the counts travel with each value so aggregation can pool them (micro)
        details={name: {**s.details, "counts": s.counts} for name, s in scores.items()},
        checks=judge(list(case.thresholds), values),
        extracted=extracted,
        warnings=warnings,
    )
