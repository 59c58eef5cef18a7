"""Widths of text as a terminal shows it."""

from __future__ import annotations

import unicodedata


def display_width(text: str) -> int:
    """Terminal columns by the Unicode East Asian Width property, independently of wcwidth."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
