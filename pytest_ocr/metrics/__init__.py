"""OCR text metrics as plain functions; no pytest needed.

>>> from pytest_ocr import metrics
>>> metrics.cer("INVOICE #12345", "INV0ICE #12345")
0.07142857142857142
>>> metrics.field_scores({"total": "$1,500.00"}, {"total": "1500"}, {"total": "numeric"}).f1
1.0
"""

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
