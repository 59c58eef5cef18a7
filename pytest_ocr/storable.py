"""Values made storable at the boundaries where they enter a run or leave it as JSON.

An engine's output is untrusted: an HTTP service can answer valid JSON holding a lone
surrogate (``"\\ud800"``), which is a Python ``str`` but not Unicode text, so no UTF-8
writer can store it. ``storable`` is the one door engine output comes through: lone
surrogates become U+FFFD (one code point for one, so alignments and lengths do not
move) with a warning on the item, a non-finite confidence becomes none, and a ``raw``
value JSON cannot hold is dropped. Everything downstream (metrics, cache, reports)
sees only what ``storable`` returned, so no writer has to defend itself.

``json_safe`` is the other edge: NaN and infinities, which standard JSON cannot hold,
become null.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Any

from .engines.base import EngineError, Recognition

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def storable_text(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate replaced by U+FFFD, and how many there were."""
    try:
        text.encode("utf-8")  # the usual case, checked at C speed
        return text, 0
    except UnicodeEncodeError:
        return _SURROGATE.subn(REPLACEMENT, text)


def _storable_value(value: Any, count: list[int]) -> Any:
    if isinstance(value, str):
        text, n = storable_text(value)
        count[0] += n
        return text
    if isinstance(value, dict):
        return {_storable_value(k, count): _storable_value(v, count) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_storable_value(v, count) for v in value]
    return value


def storable(recognition: object, engine: str) -> Recognition:
    """The engine's output as the run may store it; raises EngineError for output that
    is not a Recognition of the documented types (named ``engine`` in the message)."""
    if not isinstance(recognition, Recognition):
        raise EngineError(f"engine {engine!r} returned {type(recognition).__name__}, not a Recognition")
    problems = []
    if not isinstance(recognition.text, str):
        problems.append(f"text is {type(recognition.text).__name__}, not str")
    if recognition.lines is not None and not (
        isinstance(recognition.lines, list) and all(isinstance(line, str) for line in recognition.lines)
    ):
        problems.append("lines is not a list of str")
    if recognition.fields is not None and not isinstance(recognition.fields, dict):
        problems.append(f"fields is {type(recognition.fields).__name__}, not a mapping")
    confidence = recognition.confidence
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))):
        problems.append(f"confidence is {type(confidence).__name__}, not a number")
    if problems:
        raise EngineError(f"engine {engine!r} returned output of the wrong type: {'; '.join(problems)}")

    count = [0]
    stored = dataclasses.replace(
        recognition,
        text=_storable_value(recognition.text, count),
        lines=_storable_value(recognition.lines, count),
        fields=_storable_value(recognition.fields, count),
        raw=_storable_value(recognition.raw, count),
        warnings=[_storable_value(str(w), count) for w in recognition.warnings],
    )
    if count[0]:
        stored.warnings.append(
            f"the output held {count[0]} lone surrogate code point(s) (not Unicode text); stored and scored as U+FFFD"
        )
    if confidence is not None and not math.isfinite(confidence):
        stored.confidence = None
        stored.warnings.append(f"the engine reported a confidence of {confidence!r}; recorded as none")
    if stored.raw is not None:
        try:
            json.dumps(stored.raw, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            stored.raw = None
            stored.warnings.append("the engine's raw output is not JSON data; left out")
    return stored


def json_safe(value: Any) -> Any:
    """Replace NaN and infinities (which standard JSON cannot hold) with None."""
    try:
        # The usual case, nothing to replace, checked at C speed rather than by a walk in Python.
        json.dumps(value, allow_nan=False)
        return value
    except (ValueError, TypeError):
        return _replace_non_finite(value)


def _replace_non_finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _replace_non_finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replace_non_finite(v) for v in value]
    return value
