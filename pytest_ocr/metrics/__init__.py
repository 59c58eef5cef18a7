"""OCR text metrics as plain functions; no pytest needed.

    >>> from pytest_ocr import metrics
    >>> metrics.cer("INVOICE #12345", "INV0ICE #12345")
    0.07142857142857142
"""

from .edit import ErrorCounts, cer, character_errors, confusions, error_rate, exact_match, ned, wer, word_errors
from .fca import FCAResult, flexible_character_accuracy
from .normalize import DEFAULT, PROFILES, RAW, Normalization, profile
from .registry import (
    CER_DENOMINATORS,
    DEFAULT_METRICS,
    METRICS,
    MetricInfo,
    MetricResult,
    pooled,
    ratio,
    score,
    unknown_metrics,
)

__all__ = [
    "CER_DENOMINATORS",
    "FCAResult",
    "PROFILES",
    "confusions",
    "flexible_character_accuracy",
    "profile",
    "ratio",
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
