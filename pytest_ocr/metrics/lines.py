"""Line (sentence) error rate: the share of lines that are not exactly right."""

from __future__ import annotations

from functools import lru_cache

from .normalize import Normalization


def text_lines(text: str, normalization: Normalization) -> list[str]:
    """Lines of a text, each normalised on its own; lines empty after normalisation
    are dropped (engines differ in the blank lines they emit between paragraphs).
    Repeated lines are normalised once (10 million line breaks are 10 million lines)."""
    normalize = lru_cache(maxsize=4096)(normalization.for_lines())
    lines = (normalize(line) for line in normalization.keeping_layout()(text).splitlines())
    return [line for line in lines if line]


def line_errors(reference: list[str], hypothesis: list[str]) -> tuple[list[int], int]:
    """Indices of lines that differ, comparing line i with line i (a missing line on
    either side is an error), and the number of lines compared (the longer list)."""
    total = max(len(reference), len(hypothesis))
    padded_ref = reference + [""] * (total - len(reference))
    padded_hyp = hypothesis + [""] * (total - len(hypothesis))
    return [i for i, (r, h) in enumerate(zip(padded_ref, padded_hyp, strict=True)) if r != h], total
