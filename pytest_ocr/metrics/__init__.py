"""OCR text metrics as plain functions; no pytest needed.

>>> from pytest_ocr import metrics
>>> metrics.cer("INVOICE #12345", "INV0ICE #12345")
0.07142857142857142
>>> metrics.field_scores({"total": "$1,500.00"}, {"total": "1500"}, {"total": "numeric"}).f1
1.0

Each name is imported from its module when first used (PEP 562): ``import pytest_ocr.metrics``
costs nothing, and scoring CER never imports the table, schema or tokenizer libraries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import lazy

if TYPE_CHECKING:
    from .align import ApproximateAlignment
    from .edit import (
        EMPTY_REFERENCE_VALUES,
        ErrorCounts,
        cer,
        character_errors,
        confusions,
        error_rate,
        exact_match,
        ned,
        wer,
        word_errors,
    )
    from .fca import FCAResult, flexible_character_accuracy
    from .fields import (
        MATCHERS,
        Completeness,
        FieldScores,
        Matcher,
        completeness,
        field_scores,
        flatten,
        key_paths,
        parse_field_match,
        parse_matcher,
        schema_required_paths,
    )
    from .normalize import DEFAULT, PROFILES, RAW, Normalization, profile
    from .prepared import CER_DENOMINATORS, NEEDS, MetricResult, Structured
    from .registry import (
        DEFAULT_METRICS,
        DEFAULTS_BY_INPUT,
        FIELD_METRICS,
        METRICS,
        MetricInfo,
        metrics_for,
        pooled,
        score,
        unknown_metrics,
    )
    from .structured import (
        JsonOutput,
        SchemaCheck,
        XmlOutput,
        check_schema,
        parse_json_output,
        parse_xml_output,
        schema_errors,
        validate_output,
    )
    from .task import TASK_TYPES, TaskOutcome, check_task, evaluate_task
    from .tokens import TokenCounts, TokenizerUnavailable, count_tokens, load_encoding, meaningful_text
    from .values import ratio

# Where each public name lives.
_MODULES = {
    "ApproximateAlignment": "align",
    "EMPTY_REFERENCE_VALUES": "edit",
    "ErrorCounts": "edit",
    "cer": "edit",
    "character_errors": "edit",
    "confusions": "edit",
    "error_rate": "edit",
    "exact_match": "edit",
    "ned": "edit",
    "wer": "edit",
    "word_errors": "edit",
    "FCAResult": "fca",
    "flexible_character_accuracy": "fca",
    "MATCHERS": "fields",
    "Completeness": "fields",
    "FieldScores": "fields",
    "Matcher": "fields",
    "completeness": "fields",
    "field_scores": "fields",
    "flatten": "fields",
    "key_paths": "fields",
    "parse_field_match": "fields",
    "parse_matcher": "fields",
    "schema_required_paths": "fields",
    "DEFAULT": "normalize",
    "PROFILES": "normalize",
    "RAW": "normalize",
    "Normalization": "normalize",
    "profile": "normalize",
    "CER_DENOMINATORS": "prepared",
    "NEEDS": "prepared",
    "MetricResult": "prepared",
    "Structured": "prepared",
    "DEFAULT_METRICS": "registry",
    "DEFAULTS_BY_INPUT": "registry",
    "FIELD_METRICS": "registry",
    "METRICS": "registry",
    "MetricInfo": "registry",
    "metrics_for": "registry",
    "pooled": "registry",
    "score": "registry",
    "unknown_metrics": "registry",
    "JsonOutput": "structured",
    "SchemaCheck": "structured",
    "XmlOutput": "structured",
    "check_schema": "structured",
    "parse_json_output": "structured",
    "parse_xml_output": "structured",
    "schema_errors": "structured",
    "validate_output": "structured",
    "TASK_TYPES": "task",
    "TaskOutcome": "task",
    "check_task": "task",
    "evaluate_task": "task",
    "TokenCounts": "tokens",
    "TokenizerUnavailable": "tokens",
    "count_tokens": "tokens",
    "load_encoding": "tokens",
    "meaningful_text": "tokens",
    "ratio": "values",
}


__getattr__, __dir__ = lazy.names(__name__, _MODULES)


__all__ = [
    "ApproximateAlignment",
    "MATCHERS",
    "NEEDS",
    "TASK_TYPES",
    "Completeness",
    "FieldScores",
    "JsonOutput",
    "Matcher",
    "SchemaCheck",
    "Structured",
    "TaskOutcome",
    "TokenCounts",
    "TokenizerUnavailable",
    "XmlOutput",
    "check_schema",
    "check_task",
    "completeness",
    "count_tokens",
    "evaluate_task",
    "field_scores",
    "flatten",
    "key_paths",
    "load_encoding",
    "meaningful_text",
    "parse_field_match",
    "parse_json_output",
    "parse_matcher",
    "parse_xml_output",
    "schema_errors",
    "schema_required_paths",
    "validate_output",
    "CER_DENOMINATORS",
    "EMPTY_REFERENCE_VALUES",
    "FCAResult",
    "PROFILES",
    "confusions",
    "flexible_character_accuracy",
    "profile",
    "ratio",
    "DEFAULT",
    "DEFAULT_METRICS",
    "DEFAULTS_BY_INPUT",
    "FIELD_METRICS",
    "metrics_for",
    "METRICS",
    "RAW",
    "ErrorCounts",
    "MetricInfo",
    "MetricResult",
    "Normalization",
    "cer",
    "character_errors",
    "error_rate",
    "exact_match",
    "ned",
    "pooled",
    "score",
    "unknown_metrics",
    "wer",
    "word_errors",
]
