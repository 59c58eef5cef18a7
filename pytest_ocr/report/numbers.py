"""Numbers as people read them: the one rule for every view a person reads (terminal,
failure text, Markdown, annotations, HTML). Four decimals, or three significant digits
for values so small that four decimals would hide them; full precision only in JSON."""

from __future__ import annotations

import math

TINY = 0.001  # below this (and not zero), four decimals keep fewer than three significant digits


def number(value: float | None) -> str:
    """``0.0726``, ``0.000123``, ``12.5000``; ``-`` for none; ``inf`` and ``nan`` as such."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if value != 0 and abs(value) < TINY:
        return f"{value:.3g}"
    return f"{value:.4f}"


def signed(value: float | None) -> str:
    """A change: ``+0.1134``, ``-0.0021``, ``+0.000120``."""
    if value is None:
        return "-"
    shown = number(value)
    return shown if shown.startswith("-") or not value else "+" + shown


# With repeats, the rows every summary (terminal, Markdown, HTML) shows per engine: label and
# the field of run/aggregate.py's Stability.
STABILITY_ROWS = (
    ("repeated items", "items"),
    ("unstable items", "unstable"),
    ("identical outputs", "identical"),
    ("cer between repeats", "pairwise_cer"),
)


def stability_cell(value: float | None) -> str:
    """A count as it is, a share or a CER as a number; ``-`` for none."""
    return "-" if value is None else str(value) if isinstance(value, int) else number(value)
