"""Values made storable: text that UTF-8 can hold (``storable_text``, used by the door
engine output comes in by, engines/recognize.py), and JSON's edge (``json_safe``: NaN
and infinities, which standard JSON cannot hold, become null)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def storable_text(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate replaced by U+FFFD, and how many there were."""
    try:
        text.encode("utf-8")  # the usual case, checked at C speed
        return text, 0
    except UnicodeEncodeError:
        return _SURROGATE.subn(REPLACEMENT, text)


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
