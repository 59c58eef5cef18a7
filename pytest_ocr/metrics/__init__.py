"""OCR text metrics as plain functions; no pytest needed.

    >>> from pytest_ocr import metrics
    >>> metrics.cer("INVOICE #12345", "INV0ICE #12345")
    0.07142857142857142
"""

from .edit import ErrorCounts, cer, character_errors, error_rate, exact_match, ned, wer, word_errors
from .normalize import DEFAULT, RAW, Normalization
from .registry import DEFAULT_METRICS, METRICS, MetricInfo, MetricResult, pooled, score, unknown_metrics

__all__ = [
    "DEFAULT",
    "DEFAULT_METRICS",
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
